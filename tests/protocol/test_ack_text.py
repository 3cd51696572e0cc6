"""The acknowledgement is built without a model (one per accepted action): the same text as the model's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.protocol.messages import MAX_SEQ, AckMessage, ack_text


@given(st.integers(1, MAX_SEQ), st.integers(0, 2**40))
def test_the_ack_text_is_the_ack_message(seq: int, version: int) -> None:
    assert ack_text(seq, version) == AckMessage(seq=seq, v=version).model_dump_json()
