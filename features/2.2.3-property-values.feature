Feature: 2.2.2 / 2.2.3 PROPID and PROPVALUE - the wire form of property identifiers and values
  A target meets property values on both sides: its queue manager must read every type a PROPID
  of 2.2.2.1 carries (and disregard a message with a malformed one), and its client must write them.
  No PROPID of 2.2.2.1 carries VT_BOOL, VT_I1, VT_UI2, VT_I8, VT_UI8, VT_UI4|VT_VECTOR or
  VT_LPWSTR|VT_VECTOR, so no message a server reads holds one: those types are judged on the
  messages the target's client emits (which must never break a rule of any type). The suite's
  own codec of those types is checked by the suite's own tests (tests/test_property_value_codec.py),
  which no requirement's verdict counts.

  Background:
    Given a queue manager that owns the queue orders

  # --- server side: well-formed values of the types the PROPIDs use are read into the state ---

  Scenario Outline: A queue manager reads <value> as <type> (<propid>)
    Given a Version 0x01 message carrying <value> as <propid>
    When the target receives the message
    Then the target applies it with the value in place (<requirement>)

    @MQCN-2.2.3.1-1 @MQCN-2.2.3.1-2
    Examples: VT_I2 - 01 ff is -255, 02 01 is 258
      | type  | propid                | value | requirement    |
      | VT_I2 | PROPID_Q_BASEPRIORITY | -255  | MQCN-2.2.3.1-1 |
      | VT_I2 | PROPID_Q_BASEPRIORITY | 258   | MQCN-2.2.3.1-2 |

    @MQCN-2.2.3.2-1 @MQCN-2.2.3.2-2 @MQCN-2.2.3-1
    Examples: VT_I4 - after the one-byte values of a creation, with no padding before it
      | type  | propid               | value      | requirement    |
      | VT_I4 | PROPID_Q_CREATE_TIME | -16909060  | MQCN-2.2.3.2-1 |
      | VT_I4 | PROPID_Q_MODIFY_TIME | 0x12345678 | MQCN-2.2.3.2-2 |
      | VT_I4 | PROPID_Q_CREATE_TIME | 0x01020304 | MQCN-2.2.3-1   |

    @MQCN-2.2.3.5-1
    Examples: VT_UI1
      | type   | propid           | value | requirement    |
      | VT_UI1 | PROPID_Q_JOURNAL | 1     | MQCN-2.2.3.5-1 |

    @MQCN-2.2.3.7-1 @MQCN-2.2.3.7-2
    Examples: VT_UI4 - unsigned above 2**31, little-endian
      | type   | propid         | value      | requirement    |
      | VT_UI4 | PROPID_Q_QUOTA | 0xF1020304 | MQCN-2.2.3.7-1 |
      | VT_UI4 | PROPID_Q_QUOTA | 0x01020304 | MQCN-2.2.3.7-2 |

    @MQCN-2.2.3.10-1 @MQCN-2.2.3.10-2 @MQCN-2.2.3.10-3
    Examples: VT_LPWSTR - a surrogate pair is two 16-bit units of one character
      | type      | propid         | value        | requirement     |
      | VT_LPWSTR | PROPID_Q_LABEL | orders       | MQCN-2.2.3.10-1 |
      | VT_LPWSTR | PROPID_Q_LABEL | Zürich ✓ 𝄞 | MQCN-2.2.3.10-2 |
      | VT_LPWSTR | PROPID_Q_LABEL | x            | MQCN-2.2.3.10-3 |

    @MQCN-2.2.3.11-1 @MQCN-2.2.3.11-2 @MQCN-2.2.3.11-3 @MQCN-2.2.3.11-4
    Examples: VT_BLOB - a 22-byte security descriptor whose last bytes are above 0x7f
      | type    | propid            | value                                        | requirement     |
      | VT_BLOB | PROPID_Q_SECURITY | 01000480000000000000000000000000000000000000 | MQCN-2.2.3.11-1 |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000ff80 | MQCN-2.2.3.11-2 |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000     | MQCN-2.2.3.11-3 |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000fffe | MQCN-2.2.3.11-4 |

    @MQCN-2.2.3.12-1
    Examples: VT_CLSID - Data1..Data3 little-endian, Data4 as bytes
      | type     | propid        | value                                | requirement     |
      | VT_CLSID | PROPID_Q_TYPE | 00112233-4455-6677-8899-aabbccddeeff | MQCN-2.2.3.12-1 |

    @MQCN-2.2.3.14-1 @MQCN-2.2.3.14-2 @MQCN-2.2.3.14-3 @MQCN-2.2.3.14-4 @MQCN-2.2.3-1
    Examples: VT_CLSID|VT_VECTOR - the server ignores PROPID_QM_CNS but must walk past it
      | type                | propid        | value                                                                           | requirement     |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff, 0f0e0d0c-0b0a-0908-0706-050403020100      | MQCN-2.2.3.14-1 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff                                            | MQCN-2.2.3.14-2 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 0f0e0d0c-0b0a-0908-0706-050403020100, 00112233-4455-6677-8899-aabbccddeeff      | MQCN-2.2.3.14-3 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff, 00112233-4455-6677-8899-aabbccddeeff      | MQCN-2.2.3.14-4 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff                                            | MQCN-2.2.3-1    |

  # --- server side: a malformed value makes the whole message disregarded ---

  Scenario Outline: A queue manager disregards a message whose <type> value has <defect>
    Given a Version 0x01 message carrying <value> as <propid> with <defect>
    When the target receives the message
    Then the queue manager state is unchanged, or what the errata reading admitting the message gives (<requirement>)
    And the target still serves the next notification (<requirement>)

    @MQCN-2.2.3.1-1
    Examples: VT_I2
      | type  | propid                | value | defect         | requirement    |
      | VT_I2 | PROPID_Q_BASEPRIORITY | -255  | one byte short | MQCN-2.2.3.1-1 |

    @MQCN-2.2.3.2-1
    Examples: VT_I4
      | type  | propid               | value     | defect         | requirement    |
      | VT_I4 | PROPID_Q_CREATE_TIME | -16909060 | one byte short | MQCN-2.2.3.2-1 |

    @MQCN-2.2.3.5-1
    Examples: VT_UI1
      | type   | propid           | value | defect         | requirement    |
      | VT_UI1 | PROPID_Q_JOURNAL | 1     | one byte short | MQCN-2.2.3.5-1 |

    @MQCN-2.2.3.7-1
    Examples: VT_UI4
      | type   | propid         | value      | defect         | requirement    |
      | VT_UI4 | PROPID_Q_QUOTA | 0xF1020304 | one byte short | MQCN-2.2.3.7-1 |

    @MQCN-2.2.3.10-1 @MQCN-2.2.3.10-2 @MQCN-2.2.3.10-3
    Examples: VT_LPWSTR
      | type      | propid         | value  | defect               | requirement     |
      | VT_LPWSTR | PROPID_Q_LABEL | orders | no terminator        | MQCN-2.2.3.10-1 |
      | VT_LPWSTR | PROPID_Q_LABEL | orders | a lone surrogate     | MQCN-2.2.3.10-2 |
      | VT_LPWSTR | PROPID_Q_LABEL | orders | U+0001 as terminator | MQCN-2.2.3.10-3 |

    @MQCN-2.2.3.11-1 @MQCN-2.2.3.11-2 @MQCN-2.2.3.11-3
    Examples: VT_BLOB
      | type    | propid            | value                                    | defect               | requirement     |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000 | Size beyond the data | MQCN-2.2.3.11-1 |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000 | Size cut to 2 bytes  | MQCN-2.2.3.11-2 |
      | VT_BLOB | PROPID_Q_SECURITY | 0100048000000000000000000000000000000000 | one byte short       | MQCN-2.2.3.11-3 |

    @MQCN-2.2.3.12-1
    Examples: VT_CLSID
      | type     | propid        | value                                | defect         | requirement     |
      | VT_CLSID | PROPID_Q_TYPE | 00112233-4455-6677-8899-aabbccddeeff | one byte short | MQCN-2.2.3.12-1 |
      | VT_CLSID | PROPID_Q_QMID | 00112233-4455-6677-8899-aabbccddeeff | one byte short | MQCN-2.2.3.12-1 |

    @MQCN-2.2.3.14-1 @MQCN-2.2.3.14-2 @MQCN-2.2.3.14-3 @MQCN-2.2.3.14-4
    Examples: VT_CLSID|VT_VECTOR
      | type                | propid        | value                                                                      | defect               | requirement     |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff, 0f0e0d0c-0b0a-0908-0706-050403020100 | Size beyond the data | MQCN-2.2.3.14-1 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff, 0f0e0d0c-0b0a-0908-0706-050403020100 | Size cut to 2 bytes  | MQCN-2.2.3.14-2 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff, 0f0e0d0c-0b0a-0908-0706-050403020100 | one byte short       | MQCN-2.2.3.14-3 |
      | VT_CLSID\|VT_VECTOR | PROPID_QM_CNS | 00112233-4455-6677-8899-aabbccddeeff                                       | Size beyond the data | MQCN-2.2.3.14-4 |

  @MQCN-2.2.2-1
  Scenario Outline: A queue manager disregards a message with <defect>
    Given a Version 0x01 message with <defect>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-2.2.2-1)
    And the target still serves the next notification (MQCN-2.2.2-1)

    Examples:
      | defect                 |
      | unknown PropertyId 999 |
      | PropertyId 0           |

  # --- client side: the values a client writes ---

  Scenario Outline: A directory-service client writes the queue's <attribute> as <type>
    Given a directory-service client
    And the directory publishes the queue orders with distinctive values
    When the client sends a "QueueCreation" notification
    Then the emitted creation carries the queue's <attribute> as <propid> (<requirement>)

    @MQCN-2.2.3.1-1 @MQCN-2.2.3.1-2
    Examples: VT_I2
      | attribute    | type  | propid                | requirement    |
      | BasePriority | VT_I2 | PROPID_Q_BASEPRIORITY | MQCN-2.2.3.1-1 |
      | BasePriority | VT_I2 | PROPID_Q_BASEPRIORITY | MQCN-2.2.3.1-2 |

    @MQCN-2.2.3.2-1 @MQCN-2.2.3.2-2
    Examples: VT_I4
      | attribute  | type  | propid               | requirement    |
      | CreateTime | VT_I4 | PROPID_Q_CREATE_TIME | MQCN-2.2.3.2-1 |
      | ModifyTime | VT_I4 | PROPID_Q_MODIFY_TIME | MQCN-2.2.3.2-2 |

    @MQCN-2.2.3.5-1
    Examples: VT_UI1
      | attribute     | type   | propid               | requirement    |
      | Journaling    | VT_UI1 | PROPID_Q_JOURNAL     | MQCN-2.2.3.5-1 |
      | Transactional | VT_UI1 | PROPID_Q_TRANSACTION | MQCN-2.2.3.5-1 |

    @MQCN-2.2.3.7-1 @MQCN-2.2.3.7-2
    Examples: VT_UI4
      | attribute    | type   | propid                 | requirement    |
      | Quota        | VT_UI4 | PROPID_Q_QUOTA         | MQCN-2.2.3.7-1 |
      | JournalQuota | VT_UI4 | PROPID_Q_JOURNAL_QUOTA | MQCN-2.2.3.7-2 |

    @MQCN-2.2.3.10-1 @MQCN-2.2.3.10-2 @MQCN-2.2.3.10-3
    Examples: VT_LPWSTR
      | attribute | type      | propid            | requirement     |
      | Pathname  | VT_LPWSTR | PROPID_Q_PATHNAME | MQCN-2.2.3.10-1 |
      | Label     | VT_LPWSTR | PROPID_Q_LABEL    | MQCN-2.2.3.10-2 |
      | Label     | VT_LPWSTR | PROPID_Q_LABEL    | MQCN-2.2.3.10-3 |

    @MQCN-2.2.3.11-1 @MQCN-2.2.3.11-2 @MQCN-2.2.3.11-3 @MQCN-2.2.3.11-4
    Examples: VT_BLOB
      | attribute | type    | propid            | requirement     |
      | Security  | VT_BLOB | PROPID_Q_SECURITY | MQCN-2.2.3.11-1 |
      | Security  | VT_BLOB | PROPID_Q_SECURITY | MQCN-2.2.3.11-2 |
      | Security  | VT_BLOB | PROPID_Q_SECURITY | MQCN-2.2.3.11-3 |
      | Security  | VT_BLOB | PROPID_Q_SECURITY | MQCN-2.2.3.11-4 |

    @MQCN-2.2.3.12-1
    Examples: VT_CLSID
      | attribute  | type     | propid            | requirement     |
      | Type       | VT_CLSID | PROPID_Q_TYPE     | MQCN-2.2.3.12-1 |
      | Identifier | VT_CLSID | PROPID_Q_INSTANCE | MQCN-2.2.3.12-1 |

    @MQCN-2.2.3-1
    Examples: values packed without padding
      | attribute | type      | propid                 | requirement  |
      | Security  | VT_BLOB   | PROPID_Q_SECURITY      | MQCN-2.2.3-1 |
      | Label     | VT_LPWSTR | PROPID_Q_LABEL         | MQCN-2.2.3-1 |

  @MQCN-2.2.2-1 @MQCN-2.2.3-1
  Scenario Outline: A <kind> client writes only known PROPIDs and well-packed values
    Given a <kind> client
    And the directory publishes the queue orders with distinctive values
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every message the client emitted satisfies (MQCN-2.2.2-1)
    And every message the client emitted satisfies (MQCN-2.2.3-1)

    Examples:
      | kind              |
      | directory-service |
      | queue-manager     |

  Scenario Outline: No message a client emits breaks a rule of <type>
    Given a directory-service client
    And the directory publishes the queue orders with distinctive values
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every message the client emitted satisfies <requirements>

    @MQCN-2.2.3.1-1 @MQCN-2.2.3.1-2 @MQCN-2.2.3.2-1 @MQCN-2.2.3.2-2 @MQCN-2.2.3.5-1 @MQCN-2.2.3.7-1 @MQCN-2.2.3.7-2
    Examples: fixed-size integers used by PROPIDs
      | type                     | requirements                                                                                       |
      | VT_I2, VT_I4, VT_UI1, VT_UI4 | (MQCN-2.2.3.1-1 MQCN-2.2.3.1-2 MQCN-2.2.3.2-1 MQCN-2.2.3.2-2 MQCN-2.2.3.5-1 MQCN-2.2.3.7-1 MQCN-2.2.3.7-2) |

    @MQCN-2.2.3.10-1 @MQCN-2.2.3.10-2 @MQCN-2.2.3.10-3 @MQCN-2.2.3.11-1 @MQCN-2.2.3.11-2 @MQCN-2.2.3.11-3 @MQCN-2.2.3.11-4 @MQCN-2.2.3.12-1 @MQCN-2.2.3.14-1 @MQCN-2.2.3.14-2 @MQCN-2.2.3.14-3 @MQCN-2.2.3.14-4
    Examples: strings, BLOBs and GUIDs used by PROPIDs
      | type                                    | requirements |
      | VT_LPWSTR, VT_BLOB, VT_CLSID, VT_CLSID\|VT_VECTOR | (MQCN-2.2.3.10-1 MQCN-2.2.3.10-2 MQCN-2.2.3.10-3 MQCN-2.2.3.11-1 MQCN-2.2.3.11-2 MQCN-2.2.3.11-3 MQCN-2.2.3.11-4 MQCN-2.2.3.12-1 MQCN-2.2.3.14-1 MQCN-2.2.3.14-2 MQCN-2.2.3.14-3 MQCN-2.2.3.14-4) |

    @MQCN-2.2.3.3-1 @MQCN-2.2.3.3-2 @MQCN-2.2.3.3-3 @MQCN-2.2.3.3-4 @MQCN-2.2.3.3-5 @MQCN-2.2.3.4-1 @MQCN-2.2.3.6-1 @MQCN-2.2.3.6-2 @MQCN-2.2.3.8-1 @MQCN-2.2.3.8-2 @MQCN-2.2.3.9-1 @MQCN-2.2.3.9-2
    Examples: scalar types no PROPID of 2.2.2.1 uses
      | type                                    | requirements |
      | VT_BOOL, VT_I1, VT_UI2, VT_I8, VT_UI8 | (MQCN-2.2.3.3-1 MQCN-2.2.3.3-2 MQCN-2.2.3.3-3 MQCN-2.2.3.3-4 MQCN-2.2.3.3-5 MQCN-2.2.3.4-1 MQCN-2.2.3.6-1 MQCN-2.2.3.6-2 MQCN-2.2.3.8-1 MQCN-2.2.3.8-2 MQCN-2.2.3.9-1 MQCN-2.2.3.9-2) |

    @MQCN-2.2.3.13-1 @MQCN-2.2.3.13-2 @MQCN-2.2.3.13-3 @MQCN-2.2.3.13-4 @MQCN-2.2.3.15-1 @MQCN-2.2.3.15-2 @MQCN-2.2.3.15-3 @MQCN-2.2.3.15-4
    Examples: vector types no PROPID of 2.2.2.1 uses
      | type                                    | requirements |
      | VT_UI4\|VT_VECTOR, VT_LPWSTR\|VT_VECTOR | (MQCN-2.2.3.13-1 MQCN-2.2.3.13-2 MQCN-2.2.3.13-3 MQCN-2.2.3.13-4 MQCN-2.2.3.15-1 MQCN-2.2.3.15-2 MQCN-2.2.3.15-3 MQCN-2.2.3.15-4) |
