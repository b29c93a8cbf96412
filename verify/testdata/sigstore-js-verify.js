// Verifies a skillpm key-based bundle with sigstore-js, offline.
// usage: NODE_PATH=…/node_modules node sigstore-js-verify.js BUNDLE.json KEY.pub sha256:MANIFEST
// (verify/interop_test.go runs it)
const fs = require('fs');
const crypto = require('crypto');
const { bundleFromJSON } = require('@sigstore/bundle');
const { Verifier, toSignedEntity } = require('@sigstore/verify');
const [bundlePath, keyPath, manifest] = process.argv.slice(2);
const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, 'utf8')));
const key = crypto.createPublicKey(fs.readFileSync(keyPath, 'utf8'));
const trust = {
  certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [],
  publicKey: () => ({ publicKey: key, validFor: () => true }),
};
const v = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, tsaThreshold: 0 });
v.verify(toSignedEntity(bundle));
const stmt = JSON.parse(Buffer.from(bundle.content.dsseEnvelope.payload).toString());
const want = manifest.replace(/^sha256:/, '');
if (!stmt.subject.some((s) => s.digest.sha256 === want)) throw new Error('statement is not about ' + manifest);
console.log('verified', stmt.predicateType, 'for', manifest);
