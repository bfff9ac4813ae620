"""Prints each piece as it arrives, each on a line of its own."""
from course.grading.judging.checks.l13_the_real_api import PIECE_PER_LINE as MISTAKE

GRADE_ID = "stream_reply"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "each piece of text is printed as it arrives",
]


def stream_reply(client, model, prompt):
    pieces = []
    with client.messages.stream(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}]) as stream:
        for piece in stream.text_stream:
            print(piece)  # the mistake: a newline after every piece
            pieces.append(piece)
    return "".join(pieces)
