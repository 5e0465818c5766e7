"""The scapy layers of MS-MQMQ / MS-MQQB packets and their bridge to the wire codec, field by
field (packet_layers.py, layer_bridge.py).
"""
