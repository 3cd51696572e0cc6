"""The inbound move's fast parse (`action_frame`) takes only frames `parse_client_message` takes as the same
action, and leaves every other one to it (which accepts and refuses exactly as before)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.protocol.messages import MAX_SEQ, ActionMessage, ProtocolError, action_frame, parse_client_message

_scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=5)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_frames = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["action", "resync", "ping", "x"]) | _values,
        "seq": st.integers(-2, MAX_SEQ + 2) | st.sampled_from([True, False, 1.0, "1", 2**64]) | _values,
        "action": st.dictionaries(st.text(max_size=5), _values, max_size=3) | _values,
        "id": _values,
    },
)


def _agree(text: str) -> None:
    fast = action_frame(text)
    if fast is None:
        return  # the frame goes through `parse_client_message`, as every frame did before
    message = parse_client_message(text)
    assert isinstance(message, ActionMessage)
    assert (message.seq, message.action) == fast


@given(_frames)
def test_a_frame_taken_by_the_fast_parse_is_the_same_action_for_the_full_one(frame: dict[str, Any]) -> None:
    _agree(json.dumps(frame))


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"action","seq":true,"action":{}}',
        '{"type":"action","seq":0,"action":{}}',
        f'{{"type":"action","seq":{MAX_SEQ + 1},"action":{{}}}}',
        '{"type":"action","seq":1.0,"action":{}}',
        '{"type":"action","seq":1,"action":[]}',
        '{"type":"action","seq":1,"action":{},"extra":1}',
        '{"type":"action","seq":1,"action":{"x":NaN}}',
        '{"type":"action","seq":1,"action":{"x":"\\ud800"}}',
        '{"type":"action","seq":1}',
        "[1]",
        "not json",
    ],
)
def test_a_doubtful_frame_is_left_to_the_full_parse(text: str) -> None:
    assert action_frame(text) is None


def test_a_move_is_taken_by_the_fast_parse() -> None:
    text = '{"type":"action","seq":7,"action":{"type":"play","card":"7s"}}'
    assert action_frame(text) == (7, {"type": "play", "card": "7s"})
    _agree(text)
    with pytest.raises(ProtocolError):
        parse_client_message('{"type":"action","seq":0,"action":{}}')
