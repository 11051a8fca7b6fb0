'use strict'

// ensureValgrind, ensurePrometheus and ensureNginx share ensureChromium's way of finding and installing a Debian package
// (chromium.test.js covers that path by path); here, what is each one's own: its variable, its package,
// its purpose and its error.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ensureValgrind, ensurePrometheus, ensureNginx } = require('..')
const { temporaryDir, coded } = require('./helpers')

const EXECUTABLES = [
  { ensure: ensureValgrind, name: 'valgrind', envVar: 'VALGRIND_PATH', code: 'NB_ERR_VALGRIND_MISSING', purpose: 'for the instruction-count benchmark' },
  { ensure: ensurePrometheus, name: 'prometheus', envVar: 'PROMETHEUS_PATH', code: 'NB_ERR_PROMETHEUS_MISSING', purpose: 'for fleet breakdowns (metrics scraped from every instance)' },
  { ensure: ensureNginx, name: 'nginx', envVar: 'NGINX_PATH', code: 'NB_ERR_NGINX_MISSING', purpose: 'to balance load over independent instances (bench --topology nginx)' }
]

function executable (file, script = '#!/bin/sh\nexit 0\n') {
  fs.writeFileSync(file, script, { mode: 0o755 })
  return file
}

for (const { ensure, name, envVar, code, purpose } of EXECUTABLES) {
  test(`${name}: ${envVar} comes first, and must be an executable file`, async (t) => {
    const dir = temporaryDir(t)
    const mine = executable(path.join(dir, `my-${name}`))
    assert.equal(await ensure({ env: { [envVar]: mine }, candidates: [path.join(dir, 'missing')] }), mine)
    await assert.rejects(ensure({ env: { [envVar]: dir }, candidates: [], canInstall: false }),
      coded(code, new RegExp(`but ${envVar} is ".*", which is not an executable file\\. Install Debian's package as root \\(\`apt-get update && apt-get install -y --no-install-recommends ${name}\`\\)`)))
  })

  test(`${name}: as root with apt-get, installs the package, announcing what it is for`, async (t) => {
    const dir = temporaryDir(t)
    const installed = path.join(dir, name)
    const log = path.join(dir, 'apt-get.log')
    const aptGet = executable(path.join(dir, 'apt-get'), `#!/bin/sh
echo "$*" >> "${log}"
if [ "$1" = install ]; then printf '#!/bin/sh\\n' > "${installed}"; chmod 755 "${installed}"; fi
`)
    const progress = []
    assert.equal(await ensure({ env: {}, candidates: [installed], canInstall: true, aptGet, onProgress: (m) => progress.push(m) }), installed)
    assert.equal(progress[0], `nodebench: installing Debian's ${name} package (apt-get), once, ${purpose}...`)
    assert.deepEqual(fs.readFileSync(log, 'utf8').trim().split('\n'), ['update', `install -y --no-install-recommends ${name}`])
  })

  test(`${name}: missing and not installable, ${code}`, async (t) => {
    const dir = temporaryDir(t)
    await assert.rejects(ensure({ env: {}, candidates: [path.join(dir, name)], canInstall: false }),
      coded(code, new RegExp(`none of .*/${name} exists and apt-get is not on PATH`)))
  })
}
