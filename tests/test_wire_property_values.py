"""The wire codec's property and security sections, the message queue format names and the
MS-MQDMPR mapping, rule by rule (mqf.py, security.py, mapping.py, properties.py, user.py).
"""
