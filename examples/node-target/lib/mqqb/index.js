'use strict';
// A small MS-MQQB implementation (Message Queuing Binary Protocol, TCP): the packets of a
// session, the session itself sans I/O, a listener (acceptor) and a sender (initiator).
// Written from [MS-MQQB] 2 and 3.1 and [MS-MQMQ] 2.2.18-2.2.20. See README.md.

const codec = require('./codec');
const { Framer, AcceptorSession, InitiatorSession } = require('./session');
const { listen } = require('./listener');
const { connect } = require('./sender');

module.exports = { listen, connect, Framer, AcceptorSession, InitiatorSession, codec };
