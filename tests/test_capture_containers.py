"""The capture reader's containers, link layers, TCP and dissection, rule by rule
(containers.py, dissect.py, inet.py, records.py, tcp.py).
"""
