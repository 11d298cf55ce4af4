"""A watch stream cut mid-frame is a broken connection (reconnect), never a crashed watcher."""

import pytest
from urllib3.exceptions import ProtocolError

from pincompute.kube import rawapi


class Chunks:
    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks

    def stream(self, amt=None, decode_content=False):
        yield from self.chunks


def test_whole_frames_decode_across_chunk_boundaries():
    resp = Chunks(b'{"type":"ADDED","object":{"a":', b'1}}\n{"type":"BOOKMARK","object":{}}\n')

    assert [e["type"] for e in rawapi.iter_events(resp)] == ["ADDED", "BOOKMARK"]


@pytest.mark.parametrize("garbage", [b'{"type":"ADDED","obj\xa9ect":1}\n', b'{"type":"ADDED",\n'])
def test_a_corrupt_frame_raises_a_protocol_error(garbage):
    resp = Chunks(b'{"type":"ADDED","object":{}}\n', garbage)
    events = rawapi.iter_events(resp)

    assert next(events)["type"] == "ADDED"
    with pytest.raises(ProtocolError, match="corrupt watch frame"):
        next(events)
