"""The sandbox: where student code runs during a batch, and the one way it talks to the grader.

- `confinement.py`: how far student code is shut in (bubblewrap, a uid per worker, or neither).
- `fork_server.py`: the grader's handle on the fork server; `worker.py`: its handle on one worker.
- `course/contract/child.py`: the student's side, a standalone script (the fork server and its
  workers), copied here.
- `wire.py`: the grader's API and tool endpoint on a Unix socket, the only thing workers reach.
"""
