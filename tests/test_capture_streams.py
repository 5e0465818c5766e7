"""The capture reader's streams, its split read, its reader and its writer, rule by rule
(stream.py, split.py, reader.py, writer.py).
"""
