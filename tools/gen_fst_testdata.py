# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Regenerate the token dictionaries read by src/index/fts/fst_map_test.cc. Each case builds an
# FTS index with lancedb 0.39 (pylance 12) over a small table and copies the `_token_fst_bytes`
# of part_0_tokens.lance (a serialized map of the Rust fst crate) to <case>.fst. The expected
# (token, id) pairs go to <case>.tokens.tsv, computed independently of the index: lancedb.tokenize
# with the index's analyzer options over the rows in order, ids dense from 0 in first-seen order.
# Usage: python3 tools/gen_fst_testdata.py   (writes src/index/fts/testdata/)
import glob
import os
import random
import tempfile

import lancedb
import pyarrow as pa
from lance.file import LanceFileReader

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "src", "index", "fts", "testdata")

# Analyzer options used by the cases that keep tokens as written (no stemming, stop words or
# ASCII folding), so that non-ASCII bytes reach the dictionary.
VERBATIM = dict(stem=False, remove_stop_words=False, ascii_folding=False)


def tiny_rows():
    # Default analyzer: stemming, stop words removed, lower case. One-character tokens and
    # tokens sharing prefixes.
    return ["hello world", "a b c hello", "help helping helper", "x y z zz zzz"], {}


def large_rows():
    rng = random.Random(20250101)
    stems = ["data", "base", "index", "invert", "token", "lance", "search", "query", "vector",
             "tree", "caf\u00e9", "na\u00efve", "\u65e5\u672c", "\u6771\u4eac", "stra\u00dfe"]
    suffixes = ["", "s", "ed", "ing", "er", "ers", "ly", "ness", "tion", "able", "\u00e9",
                "\u8a9e", "x"]
    vocab = set()
    while len(vocab) < 2000:
        word = rng.choice(stems) + rng.choice(suffixes) + rng.choice(stems)
        if rng.random() < 0.5:
            word += str(rng.randrange(100))
        vocab.add(word)
    # Wide nodes: 36 transitions after "w" (a transition index, count in the state byte) and 64
    # after the UTF-8 bytes of "k" U+4E00 minus its last byte (count in a byte of its own).
    vocab.update("w" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789")
    vocab.update("k" + chr(0x4E00 + i) for i in range(64))
    words = sorted(vocab)
    rng.shuffle(words)
    rows = []
    for i in range(0, len(words), 7):
        chunk = words[i:i + 7]
        chunk += rng.sample(words[:i + 1], min(2, i + 1))  # repeated tokens keep their first id
        rows.append(" ".join(chunk))
    return rows, VERBATIM


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def with_checksum(data):
    crc = crc32c(data)
    masked = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    return data + masked.to_bytes(4, "little")


def write_synthetic():
    """Write the maps pylance never writes (an empty table gets no token dictionary), laid out
    as the fst crate's builder does: header (version 3, type 0), nodes, number of keys, root
    address, masked CRC-32C."""
    header = (3).to_bytes(8, "little") + (0).to_bytes(8, "little")
    # No keys: the root is a non-final node without transitions, at address 18: pack sizes 0,
    # number of transitions 0, state byte 0.
    empty = header + bytes([0, 0, 0]) + (0).to_bytes(8, "little") + (18).to_bytes(8, "little")
    # Only the empty key, value 0: the root is the empty final state, address 0, and no node is
    # written.
    empty_key = header + (1).to_bytes(8, "little") + (0).to_bytes(8, "little")
    for name, data in [("empty_map", empty), ("empty_key", empty_key)]:
        with open(os.path.join(OUT_DIR, name + ".fst"), "wb") as f:
            f.write(with_checksum(data))


def expected_tokens(rows, options):
    ids = {}
    for row in rows:
        for token in lancedb.tokenize(row, **options):
            ids.setdefault(token.text, len(ids))
    return ids


def build(name, rows, options):
    with tempfile.TemporaryDirectory() as tmp:
        db = lancedb.connect(tmp)
        table = db.create_table("t", pa.table({"text": pa.array(rows, pa.string())}))
        table.create_fts_index("text", **options)
        parts = glob.glob(os.path.join(tmp, "t.lance", "_indices", "*", "part_*_tokens.lance"))
        assert len(parts) == 1, f"{name}: expected one partition, found {parts}"
        row = LanceFileReader(parts[0]).read_all().to_table().to_pylist()
        assert len(row) == 1, f"{name}: expected one row in {parts[0]}"
        row = row[0]
    ids = expected_tokens(rows, options)
    assert row["_token_next_id"] == len(ids), (name, row["_token_next_id"], len(ids))
    with open(os.path.join(OUT_DIR, name + ".fst"), "wb") as f:
        f.write(row["_token_fst_bytes"])
    with open(os.path.join(OUT_DIR, name + ".tokens.tsv"), "w", encoding="utf-8") as f:
        for token, token_id in sorted(ids.items(), key=lambda kv: kv[1]):
            assert "\t" not in token and "\n" not in token
            f.write(f"{token}\t{token_id}\n")
    print(f"{name}: {len(ids)} tokens, {len(row['_token_fst_bytes'])} bytes")


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for name, make in [("tiny", tiny_rows), ("large", large_rows)]:
        rows, options = make()
        build(name, rows, options)
    write_synthetic()


if __name__ == "__main__":
    main()
