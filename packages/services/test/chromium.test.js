'use strict'

// nodebench-test: once. Finding and installing Debian's chromium: the Node.js version does not change what this tests.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ensureChromium } = require('..')
const { temporaryDir, coded } = require('./helpers')

// The machine has Debian's chromium; the paths where it is missing are taken by pointing ensureChromium at
// candidates that do not exist and at a stand-in apt-get that records how it is called.

function executable (file, script = '#!/bin/sh\nexit 0\n') {
  fs.writeFileSync(file, script, { mode: 0o755 })
  return file
}

/** An apt-get that logs its arguments and DEBIAN_FRONTEND, and on `install` runs `onInstall` (shell). */
function fakeAptGet (dir, onInstall) {
  const log = path.join(dir, 'apt-get.log')
  const aptGet = executable(path.join(dir, 'apt-get'), `#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >> "${log}"
if [ "$1" = install ]; then
${onInstall}
fi
`)
  return { aptGet, calls: () => fs.readFileSync(log, 'utf8').trim().split('\n') }
}

test('CHROMIUM_PATH comes first, and must be an executable file', async (t) => {
  const dir = temporaryDir(t)
  const browser = executable(path.join(dir, 'my-chrome'))
  const candidate = executable(path.join(dir, 'chromium'))
  assert.equal(await ensureChromium({ env: { CHROMIUM_PATH: browser }, candidates: [candidate] }), browser)
  const plain = path.join(dir, 'not-executable')
  fs.writeFileSync(plain, '')
  fs.chmodSync(plain, 0o644)
  for (const wrong of [plain, path.join(dir, 'missing'), dir]) {
    await assert.rejects(ensureChromium({ env: { CHROMIUM_PATH: wrong }, candidates: [candidate], canInstall: false }),
      coded('NB_ERR_CHROMIUM_MISSING', /but CHROMIUM_PATH is ".*", which is not an executable file\. Install Debian's package as root/))
  }
})

test('the first candidate that is an executable file', async (t) => {
  const dir = temporaryDir(t)
  const plain = path.join(dir, 'chromium-browser')
  fs.writeFileSync(plain, '', { mode: 0o644 })
  const browser = executable(path.join(dir, 'chromium'))
  assert.equal(await ensureChromium({ env: {}, candidates: [path.join(dir, 'missing'), plain, browser], canInstall: false }), browser)
})

test("this machine's Debian chromium is found without options", { skip: !fs.existsSync('/usr/bin/chromium') && 'no /usr/bin/chromium here' }, async () => {
  assert.equal(await ensureChromium({ env: { PATH: process.env.PATH } }), '/usr/bin/chromium')
})

test('missing and not installable: NB_ERR_CHROMIUM_MISSING says how to install it or set CHROMIUM_PATH', async (t) => {
  const dir = temporaryDir(t)
  const candidates = [path.join(dir, 'chromium')]
  const progress = []
  await assert.rejects(ensureChromium({ env: {}, candidates, canInstall: false, onProgress: (m) => progress.push(m) }),
    coded('NB_ERR_CHROMIUM_MISSING', /none of .*\/chromium exists and apt-get is not on PATH\. Install Debian's package as root \(`apt-get update && apt-get install -y --no-install-recommends chromium`\), or set CHROMIUM_PATH/))
  const { aptGet, calls } = fakeAptGet(dir, 'exit 0')
  await assert.rejects(ensureChromium({ env: {}, candidates, canInstall: false, aptGet }),
    coded('NB_ERR_CHROMIUM_MISSING', /exists and this process is not root/))
  await assert.rejects(ensureChromium({ env: { PATH: dir }, candidates, canInstall: false }), coded('NB_ERR_CHROMIUM_MISSING', /not root/))
  assert.deepEqual(progress, [])
  assert.throws(calls, { code: 'ENOENT' }, 'apt-get never ran')
})

test('as root with apt-get: announces, runs apt-get update then install, non-interactively, and returns the path', async (t) => {
  const dir = temporaryDir(t)
  const browser = path.join(dir, 'chromium')
  const { calls } = fakeAptGet(dir, `printf '#!/bin/sh\\n' > "${browser}"; chmod 755 "${browser}"`)
  const progress = []
  // apt-get is found on PATH, before any real one.
  const env = { PATH: `${dir}${path.delimiter}${process.env.PATH}` }
  const found = await ensureChromium({ env, candidates: [browser], canInstall: true, onProgress: (m) => progress.push(m) })
  assert.equal(found, browser)
  assert.equal(progress[0], "nodebench: installing Debian's chromium package (apt-get), once, for the report's browser check...")
  assert.deepEqual(calls(), ['noninteractive update', 'noninteractive install -y --no-install-recommends chromium'])
  // Once installed, found without apt-get.
  assert.equal(await ensureChromium({ env: {}, candidates: [browser], canInstall: true, aptGet: path.join(dir, 'missing') }), browser)
  assert.equal(calls().length, 2)
})

test('a failed apt-get install is NB_ERR_CHROMIUM_MISSING with the end of its output', async (t) => {
  const dir = temporaryDir(t)
  const { aptGet } = fakeAptGet(dir, 'echo "E: Unable to locate package chromium" >&2; exit 100')
  await assert.rejects(ensureChromium({ env: {}, candidates: [path.join(dir, 'chromium')], canInstall: true, aptGet, onProgress: () => {} }),
    coded('NB_ERR_CHROMIUM_MISSING', /installing Debian's chromium package failed \(apt-get install -y --no-install-recommends chromium exited with code 100\); the last lines of apt-get's output:\n {2}E: Unable to locate package chromium\n/))
  const { aptGet: quiet } = fakeAptGet(temporaryDir(t), 'exit 0')
  await assert.rejects(ensureChromium({ env: {}, candidates: [path.join(dir, 'chromium')], canInstall: true, aptGet: quiet, onProgress: () => {} }),
    coded('NB_ERR_CHROMIUM_MISSING', /apt-get installed chromium, but none of .* exists/))
})

test('another apt-get holding the package lock: one line says so, and the install waits for it', async (t) => {
  const dir = temporaryDir(t)
  const browser = path.join(dir, 'chromium')
  const tries = path.join(dir, 'tries')
  // The lock is held for the first two tries of each step, as apt-get 2.6 reports it.
  const aptGet = executable(path.join(dir, 'apt-get'), `#!/bin/sh
echo "$*" >> "${tries}"
if [ "$(grep -c "^$1" "${tries}")" -le 2 ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
  echo "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?" >&2
  exit 100
fi
if [ "$1" = install ]; then printf '#!/bin/sh\\n' > "${browser}"; chmod 755 "${browser}"; fi
`)
  const progress = []
  assert.equal(await ensureChromium({ env: {}, candidates: [browser], canInstall: true, aptGet, onProgress: (m) => progress.push(m) }), browser)
  assert.deepEqual(fs.readFileSync(tries, 'utf8').trim().split('\n').map((line) => line.split(' ')[0]),
    ['update', 'update', 'update', 'install', 'install', 'install'])
  const waiting = progress.filter((m) => /lock/.test(m))
  assert.deepEqual(waiting, Array(2).fill("nodebench: Debian's package lock /var/lib/dpkg/lock-frontend is held by process 4242 (apt-get) (another apt-get or dpkg); waiting for it, 10 min at most..."),
    'one line per step that had to wait')
})

test('a package lock held past the wait is NB_ERR_CHROMIUM_MISSING naming the lock and its holder', async (t) => {
  const dir = temporaryDir(t)
  const { aptGet } = fakeAptGet(dir, '')
  fs.writeFileSync(aptGet, '#!/bin/sh\necho "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 77 (apt-get)" >&2\nexit 100\n')
  const started = Date.now()
  const progress = []
  await assert.rejects(ensureChromium({ env: {}, candidates: [path.join(dir, 'chromium')], canInstall: true, aptGet, lockTimeoutMs: 2500, onProgress: (m) => progress.push(m) }),
    coded('NB_ERR_CHROMIUM_MISSING', /installing Debian's chromium package failed \(Debian's package lock \/var\/lib\/apt\/lists\/lock was still held by process 77 \(apt-get\) after 3 s\); the last lines of apt-get's output:\n {2}E: Could not get lock/))
  assert.ok(Date.now() - started >= 1500, 'it waited')
  assert.match(progress[1], /^nodebench: Debian's package lock \/var\/lib\/apt\/lists\/lock is held by process 77 \(apt-get\) .*waiting for it, 3 s at most\.\.\.$/)
})
