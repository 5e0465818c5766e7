"""A real LDAP directory for the suite: OpenLDAP's slapd laid out as Active Directory.

* ``schema/msmq.schema``: the MSMQ classes and attributes with their AD names, OIDs and syntaxes;
* :mod:`.slapd`: :class:`~.slapd.SlapdDirectory`, a slapd of its own on 127.0.0.1 ports;
* :mod:`.statslog`: slapd's stats log read back as the searches and binds it saw.

docs/directory.md tells how they fit together.
"""
