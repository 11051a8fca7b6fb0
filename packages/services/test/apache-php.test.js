'use strict'

// nodebench-test: once. Apache and PHP are Debian's: the Node.js version does not change what this tests.
// Apache httpd with PHP as bench's apache-php target runs it: Debian's apache2 and libapache2-mod-php (installed
// when missing, as root), a configuration of nodebench's own on loopback (prefork, mod_php, Debian's defaults),
// a workload's PHP pages or a page of nodebench's that answers every path with one reply, and an error that
// quotes the first lines of Apache's error log when it does not start. The real server's tests are skipped only
// where the packages cannot be installed (not root, no apt-get), saying so.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { ensureApachePhp, startApachePhp, freeLoopbackPort } = require('..')
const { apacheConfig, replyPage, PREFORK_DEFAULTS } = require('../lib/apache-php')
const { isAlive } = require('../lib/processes')
const { temporaryDir, coded } = require('./helpers')

function executable (file, script = '#!/bin/sh\nexit 0\n') {
  fs.writeFileSync(file, script, { mode: 0o755 })
  return file
}

/** Why the real Apache cannot run here (its packages cannot be installed), or false. */
const unavailable = ensureApachePhp().then(() => false, (err) => {
  if (err.code !== 'NB_ERR_APACHE_MISSING') throw err
  return `Debian's apache2 and libapache2-mod-php cannot be installed here: ${err.message.split('\n')[0]}`
})

/** A temporary directory Apache's children (www-data, when the tests run as root) may enter. */
function openDir (t) {
  const dir = temporaryDir(t)
  fs.chmodSync(dir, 0o755)
  return dir
}

/** The processes whose parent is `pid` (Apache's prefork children), from /proc. */
function childrenOf (pid) {
  const children = []
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(name))
    } catch {}
  }
  return children
}

test('the configuration: loopback, prefork with Debian\'s defaults unless given, mod_php, the reply page\'s fallback', () => {
  const config = apacheConfig({ dir: '/tmp/a', port: 8081, root: '/tmp/a/htdocs', phpModulePath: '/m/libphp8.2.so' })
  assert.match(config, /^Listen 127\.0\.0\.1:8081$/m)
  assert.match(config, /^ {2}LoadModule mpm_prefork_module \/usr\/lib\/apache2\/modules\/mod_mpm_prefork\.so$/m)
  assert.match(config, /^LoadModule php_module \/m\/libphp8\.2\.so$/m)
  assert.match(config, new RegExp(`^MaxRequestWorkers ${PREFORK_DEFAULTS.maxRequestWorkers}$`, 'm'))
  assert.match(config, /^KeepAlive On$/m)
  assert.doesNotMatch(config, /FallbackResource|^User /m)
  const wide = apacheConfig({ dir: '/tmp/a', port: 1, root: '/r', phpModulePath: '/m.so', prefork: { maxRequestWorkers: 1000, keepAlive: false }, fallback: true, user: 'www-data', group: 'www-data' })
  assert.match(wide, /^ServerLimit 1000$/m)
  assert.match(wide, /^MaxRequestWorkers 1000$/m)
  assert.match(wide, /^KeepAlive Off$/m)
  assert.match(wide, /^FallbackResource \/index\.php$/m)
  assert.match(wide, /^User www-data\nGroup www-data$/m)
})

test('the reply page quotes its content type as PHP reads it', () => {
  const page = replyPage({ status: 201, contentType: "text/plain; x='a\\b'" })
  assert.match(page, /http_response_code\(201\);/)
  assert.ok(page.includes("header('Content-Type: text/plain; x=\\'a\\\\b\\'');"), page)
})

test('APACHE_PATH comes first; without PHP\'s module beside it, NB_ERR_APACHE_MISSING names what is missing', async (t) => {
  const dir = temporaryDir(t)
  const mine = executable(path.join(dir, 'apache2'))
  const modules = path.join(dir, 'modules')
  fs.mkdirSync(modules)
  await assert.rejects(ensureApachePhp({ env: { APACHE_PATH: mine }, modulesDir: modules, canInstall: false }),
    coded('NB_ERR_APACHE_MISSING', /but APACHE_PATH is ".*", but PHP's Apache module \(libphp\*\.so in .*\) is missing\. Install Debian's packages as root \(`apt-get update && apt-get install -y --no-install-recommends apache2 libapache2-mod-php`\)/))
  fs.writeFileSync(path.join(modules, 'libphp8.2.so'), '')
  assert.equal(await ensureApachePhp({ env: { APACHE_PATH: mine }, modulesDir: modules }), mine)
})

test('as root with apt-get, installs both packages at once, announcing what they are for; not installable, NB_ERR_APACHE_MISSING', async (t) => {
  const dir = temporaryDir(t)
  const installed = path.join(dir, 'apache2')
  const modules = path.join(dir, 'modules')
  const log = path.join(dir, 'apt-get.log')
  const aptGet = executable(path.join(dir, 'apt-get'), `#!/bin/sh
echo "$*" >> "${log}"
if [ "$1" = install ]; then printf '#!/bin/sh\\n' > "${installed}"; chmod 755 "${installed}"; mkdir -p "${modules}"; : > "${modules}/libphp8.2.so"; fi
`)
  // apache2 alone is there (apache2-bin without libapache2-mod-php): still installed, for the module.
  executable(installed)
  await assert.rejects(ensureApachePhp({ env: {}, candidates: [installed], modulesDir: modules, canInstall: false, aptGet }),
    coded('NB_ERR_APACHE_MISSING', /but .*apache2 exists but PHP's Apache module .* is missing and this process is not root/))
  const progress = []
  assert.equal(await ensureApachePhp({ env: {}, candidates: [installed], modulesDir: modules, canInstall: true, aptGet, onProgress: (m) => progress.push(m) }), installed)
  assert.equal(progress[0], "nodebench: installing Debian's apache2 and libapache2-mod-php packages (apt-get), once, for the Apache httpd and PHP baseline (bench's apache-php target)...")
  assert.deepEqual(fs.readFileSync(log, 'utf8').trim().split('\n'), ['update', 'install -y --no-install-recommends apache2 libapache2-mod-php'])
})

test('a workload\'s PHP pages on loopback: PHP runs them, in a prefork pool of Debian\'s size; stopped, no process is left', { timeout: 600_000 }, async (t) => {
  const skip = await unavailable
  if (skip) return t.skip(skip)
  const dir = openDir(t)
  const root = path.join(dir, 'pages')
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true })
  fs.writeFileSync(path.join(root, 'index.php'), '<?php echo "Hello World";\n')
  fs.writeFileSync(path.join(root, 'sub', 'sum.php'), '<?php header("X-Php: " . PHP_VERSION); echo 6 * 7;\n')
  const apache = await startApachePhp({ dir: path.join(dir, 'apache'), port: await freeLoopbackPort(), root })
  t.after(() => apache.stop())
  assert.match(apache.versions.apache, /^2\.\d+\.\d+$/)
  assert.match(apache.versions.php, /^\d+\.\d+/)
  const home = await fetch(`${apache.url}/`)
  assert.equal(home.status, 200)
  assert.equal(await home.text(), 'Hello World')
  const sum = await fetch(`${apache.url}/sub/sum.php`)
  assert.equal(await sum.text(), '42')
  assert.ok(apache.versions.php.startsWith(sum.headers.get('x-php').split('.').slice(0, 2).join('.')), sum.headers.get('x-php'))
  assert.equal((await fetch(`${apache.url}/missing.php`)).status, 404)
  assert.equal((await fetch(`${apache.url}/index.php`, { headers: { host: 'example.com' } })).status, 200)
  const children = childrenOf(apache.pid)
  assert.ok(children.length >= PREFORK_DEFAULTS.startServers, `prefork children: ${children.join(', ')}`)
  await apache.stop()
  assert.equal(isAlive(apache.pid), false)
  assert.deepEqual(children.filter(isAlive), [], 'no prefork child outlives Apache')
  await assert.rejects(fetch(`${apache.url}/`))
})

test('the reply page: every path answers the reply\'s status, type and bytes', { timeout: 600_000 }, async (t) => {
  const skip = await unavailable
  if (skip) return t.skip(skip)
  const dir = temporaryDir(t)
  const body = Buffer.from(JSON.stringify({ id: 7, name: 'teapot', note: "it's \\ here" }))
  const apache = await startApachePhp({ dir, port: await freeLoopbackPort(), reply: { status: 201, contentType: 'application/json; charset=utf-8', body } })
  t.after(() => apache.stop())
  for (const where of ['/', '/items/7', '/a/b.php?x=1']) {
    const response = await fetch(`${apache.url}${where}`, { method: where === '/' ? 'POST' : 'GET', body: where === '/' ? 'x' : undefined })
    assert.equal(response.status, 201, where)
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), body)
  }
})

test('Apache that cannot start: NB_ERR_APACHE_START quotes the first lines of its error log, and nothing is left running', { timeout: 600_000 }, async (t) => {
  const skip = await unavailable
  if (skip) return t.skip(skip)
  const dir = openDir(t)
  const taken = net.createServer()
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.after(() => taken.close())
  const root = path.join(dir, 'pages')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'index.php'), '<?php echo 1;\n')
  await assert.rejects(startApachePhp({ dir: path.join(dir, 'apache'), port: taken.address().port, root, readyTimeoutMs: 10_000 }),
    coded('NB_ERR_APACHE_START', /^Apache httpd: exited \(code 1\) before it answered on http:\/\/127\.0\.0\.1:\d+; the first lines of its error log \(.*error\.log\):\n {2}.*Address already in use/))
  const left = execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((line) => line.includes(path.join(dir, 'apache')))
  assert.deepEqual(left, [])
})

test('options: a root or a reply, and prefork settings Apache has', async (t) => {
  const dir = temporaryDir(t)
  await assert.rejects(startApachePhp({ dir, port: 1 }), coded('NB_ERR_INVALID_OPTION', /root or reply/))
  await assert.rejects(startApachePhp({ dir, port: 1, root: path.join(dir, 'missing') }), coded('NB_ERR_INVALID_OPTION', /"root" must be a directory of PHP pages/))
  await assert.rejects(startApachePhp({ dir, port: 1, root: dir, prefork: { threads: 4 } }), coded('NB_ERR_INVALID_OPTION', /"prefork\.threads" must be one of startServers/))
})

test('as root, a directory Apache\'s children cannot reach is refused, naming the closed parent', { skip: process.getuid() !== 0 && 'not root: Apache\'s children run as this user' }, async (t) => {
  const skip = await unavailable
  if (skip) return t.skip(skip)
  const dir = temporaryDir(t)
  fs.chmodSync(dir, 0o700)
  await assert.rejects(startApachePhp({ dir: path.join(dir, 'apache'), port: 1, reply: { status: 200, body: 'x' } }),
    coded('NB_ERR_INVALID_OPTION', new RegExp(`"dir" must be a directory whose parents anyone may enter \\(Apache's children run as \\S+, and ${dir} is closed to them\\)`)))
})
