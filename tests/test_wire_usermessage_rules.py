"""A UserMessage's queue names and headers as the wire codec reads and renders them, rule by
rule (queues.py, usermessage.py, render.py).
"""
