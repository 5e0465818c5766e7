'use strict';
// LDAP mode: the server side's Read Directory goes to an LDAP directory laid out as Active
// Directory ([MS-MQDSSM] 2.2.1), through the npm client `ldapts` (loaded only here, only in
// LDAP mode: `node target.js` runs without `npm ci` otherwise).
//
// One Read Directory ([MS-MQDSSM] 3.1.6.3) = one connection:
//   connect + simple bind (3.1.6.18; a failure is DirectoryNotConnected, 3.1.6.14)
//   find the DN by objectGUID: subtree search under the naming context with the AD-practice
//     filter (objectGUID=\xx..) (3.1.6.19; the suite's reference sends the letter's compact
//     form, so the two together show both pass: errata D-01); no entry is ObjectNotFound
//     (errata D-06); the bind is a simple bind, not SASL GSS-SPNEGO (errata D-10)
//   base-scope search at that DN for the LDAP attributes of the ADM list (3.1.6.14, 3.1.6.10)
//   the ADM element from the values (3.1.6.11, lib/dssm.js); unbind.
// Any LDAP result code maps per 2.2.6. Every answer is either the ADM element or a
// ReadFailure: the queue manager takes nothing from a failed read.
const { Status, ReadFailure, statusOfLdapCode, ldapAttributesFor, guidFilterText,
  queueFromLdap, queueManagerFromLdap, valuesOfEntry } = require('./dssm');
const { guidToBytes, normalize } = require('./guid');

const INSTALL_HINT = 'LDAP mode needs the npm package ldapts: run `npm ci` in examples/node-target';

// The ldapts module, or an Error with the one-line install hint.
function loadLdapts(load = require) {
  try {
    return load('ldapts');
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && /ldapts/.test(e.message)) throw new Error(INSTALL_HINT);
    throw e;
  }
}

const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const LDAP_URL = /^ldaps?:\/\/[^/\s]+\/?$/;

// Check `setup.directory.ldap` (the adapter protocol's LDAP capability) and return it with
// `servers` as a Map. Throws a TypeError naming the field that is wrong.
function checkLdapConfig(c) {
  if (!isObject(c)) throw new TypeError('directory.ldap must be an object');
  if (typeof c.url !== 'string' || !LDAP_URL.test(c.url)) throw new TypeError('directory.ldap.url must be an ldap://host:port URL');
  for (const k of ['bind_dn', 'password', 'naming_context']) {
    if (typeof c[k] !== 'string') throw new TypeError(`directory.ldap.${k} must be text`);
  }
  if (!c.naming_context) throw new TypeError('directory.ldap.naming_context must not be empty');
  const servers = new Map();
  if (c.servers !== undefined) {
    if (!isObject(c.servers)) throw new TypeError('directory.ldap.servers must be an object {name: url}');
    for (const [name, url] of Object.entries(c.servers)) {
      if (typeof url !== 'string' || !LDAP_URL.test(url)) throw new TypeError(`directory.ldap.servers[${JSON.stringify(name)}] must be an ldap:// URL`);
      servers.set(name.toLowerCase(), url);
    }
  }
  return { url: c.url, bindDn: c.bind_dn, password: c.password, namingContext: c.naming_context, servers };
}

// How long one connect or one LDAP operation may take (MQCN_NODE_LDAP_TIMEOUT_MS, default 5 s).
// A read stops at the first operation that times out, so a stopped server costs one of these
// (inside the suite's 10 s call timeout), and a slow one may take up to this per operation.
const DEFAULT_TIMEOUT_MS = 5000;
function timeoutFromEnv(env = process.env) {
  const v = env.MQCN_NODE_LDAP_TIMEOUT_MS;
  if (v === undefined || v === '') return DEFAULT_TIMEOUT_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`MQCN_NODE_LDAP_TIMEOUT_MS must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

// A failed LDAP operation -> ReadFailure: a server's result code per 2.2.6, anything else
// (refused, reset, timed out) as GenericError, or `otherwise` for the connection stage.
function failureOf(e, stage, otherwise = Status.GenericError) {
  const code = e && Number.isInteger(e.code) ? e.code : null;
  const what = `${stage}: ${(e && e.message) || e}`.replace(/\s+/g, ' ');
  if (code === null) return new ReadFailure(otherwise, what);
  if (otherwise === Status.DirectoryNotConnected) return new ReadFailure(otherwise, `${what} [LDAP result ${code}]`);
  return new ReadFailure(statusOfLdapCode(code), `${what} [LDAP result ${code}, MS-MQDSSM 2.2.6]`);
}

class LdapDirectory {
  // config: checkLdapConfig's result; ldapts: the client module (tests may pass a fake).
  constructor(config, { log = () => {}, timeoutMs = DEFAULT_TIMEOUT_MS, ldapts = loadLdapts() } = {}) {
    if (!ldapts || typeof ldapts.Client !== 'function') throw new TypeError('LdapDirectory needs an LDAP client module (ldapts)');
    this.config = config;
    this.log = log;
    this.timeoutMs = timeoutMs;
    this.ldapts = ldapts;
  }

  // The listener that plays directory server `name` (the body's DomainController); a name
  // not in `servers` goes to `url`.
  urlFor(name) {
    const url = typeof name === 'string' ? this.config.servers.get(name.toLowerCase()) : undefined;
    return url || this.config.url;
  }

  // Read Directory of `objectType` ('Queue' | 'QueueManager') whose Identifier is
  // `identifier`, for the ADM attributes `attributes`: a Promise of the ADM element
  // (Queue: whole, with defaults; QueueManager: just those attributes) or a ReadFailure.
  async read(objectType, identifier, attributes, server) {
    const url = this.urlFor(server);
    const guid = normalize(identifier);
    const client = new this.ldapts.Client({ url, timeout: this.timeoutMs, connectTimeout: this.timeoutMs });
    try {
      // Prepare an LDAP Connection (3.1.6.18): connect and bind.
      try {
        await client.bind(this.config.bindDn, this.config.password);
      } catch (e) {
        return failureOf(e, `bind to ${url} as ${this.config.bindDn}`, Status.DirectoryNotConnected);
      }
      // Find Object By GUID (3.1.6.19), AD practice: the 16 bytes escaped.
      let found;
      try {
        found = await client.search(this.config.namingContext, {
          scope: 'sub', // ldapts sends derefAliases neverDerefAliases
          filter: new this.ldapts.EqualityFilter({ attribute: 'objectGUID', value: guidToBytes(guid) }),
          attributes: ['distinguishedName'],
        });
      } catch (e) {
        return failureOf(e, `search ${guidFilterText(guid)} under ${this.config.namingContext}`);
      }
      const entries = found.searchEntries;
      if (entries.length === 0) return new ReadFailure(Status.ObjectNotFound, `no entry has objectGUID ${guid}`);
      if (entries.length > 1) return new ReadFailure(Status.GenericError, `${entries.length} entries have objectGUID ${guid}`);
      const dn = entries[0].dn;
      // Get Object Properties (3.1.6.14): a base-scope read at the DN, for the LDAP names of
      // the ADM list (3.1.6.10). Octet-string attributes come back as bytes.
      const wanted = ldapAttributesFor(objectType, attributes);
      let got;
      try {
        got = await client.search(dn, {
          scope: 'base', filter: '(objectClass=*)', attributes: wanted,
          explicitBufferAttributes: [...wanted, ...wanted.map((a) => a.toLowerCase())],
        });
      } catch (e) {
        return failureOf(e, `read of ${dn}`);
      }
      if (got.searchEntries.length !== 1) return new ReadFailure(Status.ObjectNotFound, `${dn} returned ${got.searchEntries.length} entries`);
      const values = valuesOfEntry(got.searchEntries[0]);
      // Create ADM Element From LDAP Values (3.1.6.11). Pathname and DirectoryPath come
      // from distinguishedName: its stored value where the server keeps one (Active
      // Directory does), else the DN the server named the entry by (OpenLDAP).
      const stored = values.distinguishedname && values.distinguishedname[0];
      const entryDn = stored ? stored.toString('utf8') : got.searchEntries[0].dn || dn;
      return objectType === 'Queue'
        ? queueFromLdap(values, entryDn, attributes)
        : queueManagerFromLdap(values, entryDn, attributes);
    } catch (e) {
      return failureOf(e, 'LDAP');
    } finally {
      client.unbind().catch(() => {}); // Shut Down an LDAP Connection; a dead socket is just closed
    }
  }
}

module.exports = { LdapDirectory, checkLdapConfig, loadLdapts, timeoutFromEnv, INSTALL_HINT, DEFAULT_TIMEOUT_MS };
