// docs/openapi.json as a real karted serves it, checked by an OpenAPI 3.1
// validator (@seriousme/openapi-schema-validator, the OpenAPI Initiative's
// schemas) and every schema in it compiled by Ajv in strict mode (JSON
// Schema 2020-12, OpenAPI 3.1's dialect): a keyword misspelt or misplaced
// fails here. The answers themselves are held to it by tests/openapi_check.py.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import { startKarted, root } from './karted.mjs';

let k;
before(async () => { k = await startKarted(process.env.KARTED || path.join(root, 'build', 'karted')); });
after(async () => { await k.stop(); });

const file = JSON.parse(readFileSync(path.join(root, 'docs', 'openapi.json'), 'utf8'));
const version = readFileSync(path.join(root, 'server', 'core', 'version.h'), 'utf8').match(/KARTE_VERSION "([^"]+)"/)[1];

async function served() {
  const r = await fetch(`${k.url}/api/v1/openapi.json`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^application\/json/);
  return r.json();
}

test('karted serves docs/openapi.json with its own version', async () => {
  const doc = await served();
  assert.equal(doc.info.version, version);
  assert.deepEqual({ ...doc, info: { ...doc.info, version: file.info.version } }, file);
});

test('the description is valid OpenAPI 3.1', async () => {
  const v = new Validator();
  const res = await v.validate(await served());
  assert.equal(v.version, '3.1');
  assert.ok(res.valid, JSON.stringify(res.errors, null, 1));
});

test('the validator refuses a broken copy (it can fail)', async () => {
  const broken = structuredClone(file);
  delete broken.paths['/api/v1/runs'].post.responses;
  broken.paths['/api/v1/health'].get.parameters = [{ name: 'x', in: 'nowhere' }];
  const res = await new Validator().validate(broken);
  assert.equal(res.valid, false);
});

test('every schema compiles in strict JSON Schema 2020-12', async () => {
  const v = new Validator();
  await v.validate(structuredClone(file));
  const doc = v.resolveRefs();
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true });
  let n = 0;
  const compile = (where, schema) => {
    try { ajv.compile(schema); n++; } catch (e) { assert.fail(`${where}: ${e.message}`); }
  };
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      for (const prm of op.parameters || []) compile(`${m} ${p} parameter ${prm.name}`, prm.schema);
      for (const [ct, c] of Object.entries(op.requestBody?.content || {})) compile(`${m} ${p} body ${ct}`, c.schema);
      for (const [s, r] of Object.entries(op.responses)) {
        for (const [ct, c] of Object.entries(r.content || {})) compile(`${m} ${p} ${s} ${ct}`, c.schema);
      }
    }
  }
  assert.ok(n > 150, `schemas compiled: ${n}`);
  // and a strict compile refuses a misspelt keyword
  assert.throws(() => ajv.compile({ type: 'object', propertees: {} }));
});
