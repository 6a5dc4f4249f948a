// Preloaded into a built service (NODE_OPTIONS=--require …) by the tests that run it as its own
// process: the host names in BRIDLE_TEST_HOSTS (comma-separated) resolve to 127.0.0.1, as the
// resolver the in-process tests give OutboundNetwork makes them; every other name resolves as
// usual. The guarded fetch looks names up with node:dns/promises' lookup at each fetch.
'use strict';
const dns = require('node:dns/promises');

const names = new Set((process.env.BRIDLE_TEST_HOSTS || '').split(',').filter(Boolean));
const lookup = dns.lookup;
dns.lookup = function (hostname, options) {
  if (!names.has(hostname)) return lookup.call(this, hostname, options);
  const entry = { address: '127.0.0.1', family: 4 };
  return Promise.resolve(options && typeof options === 'object' && options.all ? [entry] : entry);
};
