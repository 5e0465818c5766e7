'use strict';
// QueuePathName syntax ([MS-MQMQ] 2.1.1, which MS-MQCN 2.2.6 cites through
// PROPID_Q_PATHNAME): Computer "\" QueueName | Computer "\private$\" QueueName |
// Computer "\system$;" QueueName, with an optional ";Subqueue" (MSMQ 4.0+).
// Reading (errata E-10, strict): Computer is everything before the first backslash,
// 1..256 characters of %x21-7E; QueueName 1..124 characters of the MSMQ 2.0+ set, i.e.
// %x21-7F without '"' '+' ',' ';' '\'; Subqueue 1..32 characters of the same set.

const NAME_CHAR = /^[\x21\x23-\x2A\x2D-\x3A\x3C-\x5B\x5D-\x7F]$/;

function validName(s, max) {
  if (s.length < 1 || s.length > max) return false;
  for (const ch of s) if (!NAME_CHAR.test(ch)) return false;
  return true;
}

// Returns null if `path` is a valid QueuePathName, else a reason.
function pathNameProblem(path) {
  if (typeof path !== 'string') return 'not a string';
  const bs = path.indexOf('\\');
  if (bs < 0) return 'no backslash after the computer name';
  const computer = path.slice(0, bs);
  if (computer.length < 1 || computer.length > 256) return 'computer name must be 1..256 characters';
  if (!/^[\x21-\x7E]+$/.test(computer)) return 'computer name outside %x21-7E';
  let rest = path.slice(bs); // starts with "\"
  const lower = rest.slice(0, 10).toLowerCase(); // ASCII prefixes only; case-insensitive
  if (lower.startsWith('\\private$\\')) rest = rest.slice(10);
  else if (lower.startsWith('\\system$;')) rest = rest.slice(9);
  else rest = rest.slice(1);
  const semi = rest.indexOf(';');
  const queue = semi < 0 ? rest : rest.slice(0, semi);
  if (!validName(queue, 124)) return 'queue name must be 1..124 characters of the MSMQ 2.0+ set';
  if (semi >= 0 && !validName(rest.slice(semi + 1), 32)) return 'subqueue name must be 1..32 characters of the MSMQ 2.0+ set';
  return null;
}

module.exports = { pathNameProblem };
