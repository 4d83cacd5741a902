from __future__ import annotations

import json

from agentur.ai.neutralization.gate import StreamReidentifier
from agentur.ai.neutralization.mapping_cipher import MappingCipher, load_or_create_key
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.placeholder_map import PlaceholderMap


def test_placeholders_are_stable_and_numbered_per_type():
    mapping = PlaceholderMap()
    n = Neutralizer()
    first = n.neutralize("a@x.ch, b@x.ch, +41 44 668 18 00", mapping)
    second = n.neutralize("b@x.ch again, then c@x.ch", mapping)
    assert first == "[EMAIL_1], [EMAIL_2], [PHONE_1]"
    assert second == "[EMAIL_2] again, then [EMAIL_3]"


def test_map_survives_json_and_hides_values_in_repr():
    mapping = PlaceholderMap()
    Neutralizer().neutralize("hans@example.ch", mapping)
    restored = PlaceholderMap.from_json(mapping.to_json())
    assert restored.reidentify("to [EMAIL_1]") == "to hans@example.ch"
    assert "hans" not in repr(mapping)
    # New values continue the numbering.
    assert Neutralizer().neutralize("x@y.ch", restored) == "[EMAIL_2]"


def test_stream_reidentifier_joins_split_placeholders():
    mapping = PlaceholderMap()
    Neutralizer().neutralize("hans@example.ch", mapping)
    stream = StreamReidentifier(mapping)
    pieces = [stream.feed(p) for p in ("Write to [EMA", "IL_1", "] today [", "x]")]
    assert "".join(pieces) + stream.flush() == "Write to hans@example.ch today [x]"


def test_json_argument_fragments_are_reidentified_with_escaping():
    mapping = PlaceholderMap()
    Neutralizer().neutralize('Kunde "Acme"', mapping, ['"Acme"'])
    stream = StreamReidentifier(mapping, json_text=True)
    text = stream.feed('{"to": "[TE') + stream.feed('RM_1]"}') + stream.flush()
    assert json.loads(text) == {"to": '"Acme"'}


def test_cipher_encrypts_at_rest(tmp_path):
    key_path = tmp_path / "neutralization.key"
    key = load_or_create_key(key_path)
    assert load_or_create_key(key_path) == key
    assert oct(key_path.stat().st_mode & 0o777) == "0o600"
    mapping = PlaceholderMap()
    Neutralizer().neutralize("hans@example.ch 756.1234.5678.97", mapping)
    token = MappingCipher(key).encrypt(mapping)
    # The whole values: a 3-letter piece like "756" turns up in the base64 token by chance
    # (about 1 run in 1000 failed so).
    assert b"hans@example.ch" not in token and b"756.1234.5678.97" not in token
    assert MappingCipher(key).decrypt(token).reidentify("[AHV_1]") == "756.1234.5678.97"
    # Another key cannot read it (and does not crash).
    assert len(MappingCipher.generated().decrypt(token)) == 0
