"""Prints the pieces as they arrive, but returns the text of the final message's first block."""
from course.grading.judging.checks.l13_the_real_api import FIRST_BLOCK as MISTAKE

GRADE_ID = "stream_reply"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one streamed request: the prompt, max_tokens=1024",
    "each piece of text is printed as it arrives",
    "the whole text is returned",
]


def stream_reply(client, model, prompt):
    with client.messages.stream(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}]) as stream:
        for piece in stream.text_stream:
            print(piece, end="", flush=True)
        final = stream.get_final_message()
    print()
    return final.content[0].text  # the mistake: the first block may be thinking, and there may be more text blocks
