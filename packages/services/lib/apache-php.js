'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn, execFile } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { ensureDebianExecutable } = require('./debian-package')
const { terminate } = require('./processes')
const errors = require('./errors')

// Apache httpd with PHP as a baseline beside a Node.js app (bench's `apache-php` target), as Paliwal's study ran
// it: the prefork MPM, one process per connection, PHP inside each (mod_php). Debian's apache2 and
// libapache2-mod-php (or APACHE_PATH) with a configuration nodebench writes in a directory of its own, on
// loopback; its own pid file, error log and document root there, never /etc/apache2's.
//
// The document root is a copy of the pages given (a workload's PHP pages), or a page of nodebench's own that
// answers every path with one reply (what the app answered: bench's ceilings serve the app's bytes). A copy,
// because Apache's children run as www-data when nodebench runs as root, and must read every directory above
// the pages.

const APACHE_CANDIDATES = Object.freeze(['/usr/sbin/apache2'])
const MODULES_DIR = '/usr/lib/apache2/modules'
// Debian's mods-available/mpm_prefork.conf and apache2.conf: what a user who installs the packages runs.
const PREFORK_DEFAULTS = Object.freeze({
  startServers: 5,
  minSpareServers: 5,
  maxSpareServers: 10,
  maxRequestWorkers: 150,
  maxConnectionsPerChild: 0
})
const KEEPALIVE_DEFAULTS = Object.freeze({ keepAlive: true, maxKeepAliveRequests: 100, keepAliveTimeoutSec: 5 })
const PREFORK_KEYS = Object.freeze([...Object.keys(PREFORK_DEFAULTS), ...Object.keys(KEEPALIVE_DEFAULTS)])

/** The PHP module of Debian's libapache2-mod-php beside `apache2` (libphp8.2.so), or null. */
function phpModule (modulesDir = MODULES_DIR) {
  let names
  try {
    names = fs.readdirSync(modulesDir)
  } catch {
    return null
  }
  const module = names.filter((name) => /^libphp[\d.]*\.so$/.test(name)).sort().pop()
  return module === undefined ? null : path.join(modulesDir, module)
}

/**
 * The path of an apache2 executable with PHP's module beside it: APACHE_PATH, else /usr/sbin/apache2, else
 * Debian's apache2 and libapache2-mod-php packages installed with apt-get (as root only). Options as
 * ensureNginx's, and `modulesDir` (where the modules are; default Debian's).
 */
function ensureApachePhp ({ candidates = APACHE_CANDIDATES, modulesDir = MODULES_DIR, ...options } = {}) {
  return ensureDebianExecutable({
    packageName: ['apache2', 'libapache2-mod-php'],
    envVar: 'APACHE_PATH',
    candidates,
    purpose: 'for the Apache httpd and PHP baseline (bench\'s apache-php target)',
    missing: errors.apacheMissing,
    alongside: { present: () => phpModule(modulesDir) !== null, what: `PHP's Apache module (libphp*.so in ${modulesDir})` }
  }, options)
}

function run (binary, args, { env } = {}) {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: 30_000, env }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { output: `${stdout}${stderr}` }))
      else resolve(`${stdout}${stderr}`)
    })
  })
}

/** Apache's version from `apache2 -v` ('2.4.66'); PHP's from its Debian package, else its module's name. */
async function versions (binary, modulePath) {
  const apache = /Apache\/(\S+)/.exec(await run(binary, ['-v']).catch(() => ''))
  const line = /libphp([\d.]+)\.so$/.exec(modulePath)
  let php = line === null ? null : line[1]
  if (php !== null) {
    // dpkg-query's own field syntax, not a template.
    const format = '$' + '{Version}'
    const installed = await run('dpkg-query', ['-W', '-f', format, `libapache2-mod-php${php}`]).catch(() => '')
    const version = /^(?:\d+:)?(\d+\.\d+\.\d+)/.exec(installed.trim())
    if (version !== null) php = version[1]
  }
  return { apache: apache === null ? null : apache[1], php }
}

/** A PHP string literal of `text` (single quotes: only \ and ' are special). */
function phpString (text) {
  return `'${String(text).replace(/[\\']/g, (char) => `\\${char}`)}'`
}

/**
 * nodebench's own page: every request answered with `reply` (`{ status, contentType, body }`, body a Buffer or
 * string), the body read from reply.body beside the page.
 */
function replyPage ({ status, contentType }) {
  return `<?php
// Written by nodebench: a bare PHP page that answers every request with one reply (reply.body beside it).
http_response_code(${Number(status)});
${contentType ? `header(${phpString(`Content-Type: ${contentType}`)});\n` : ''}readfile(__DIR__ . '/reply.body');
`
}

/** The first user of `names` in /etc/passwd (and group in /etc/group), for Apache's children when run as root. */
function accountOf (names, file) {
  let text = ''
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {}
  const known = new Set(text.split('\n').map((line) => line.split(':')[0]))
  return names.find((name) => known.has(name)) ?? null
}

/**
 * apache2.conf for pages in `root` on 127.0.0.1:`port`: prefork with Debian's defaults unless `prefork` says
 * otherwise, mod_php, no access log. `fallback`: every path that is no file goes to /index.php (the reply page).
 */
function apacheConfig ({
  dir, port, root, modulesDir = MODULES_DIR, phpModulePath, prefork = {}, fallback = false, user = null, group = null
}) {
  const settings = { ...PREFORK_DEFAULTS, ...KEEPALIVE_DEFAULTS, ...prefork }
  const load = (name, file) => `<IfModule !${name}>\n  LoadModule ${name} ${path.join(modulesDir, file)}\n</IfModule>`
  return `# Written by nodebench (bench's apache-php target): Apache httpd, prefork MPM and mod_php, on loopback.
ServerRoot "${dir}"
DefaultRuntimeDir "${path.join(dir, 'run')}"
PidFile "${path.join(dir, 'run', 'apache2.pid')}"
ErrorLog "${path.join(dir, 'error.log')}"
LogLevel warn
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
${load('mpm_prefork_module', 'mod_mpm_prefork.so')}
${load('unixd_module', 'mod_unixd.so')}
${load('authz_core_module', 'mod_authz_core.so')}
${load('dir_module', 'mod_dir.so')}
${load('mime_module', 'mod_mime.so')}
LoadModule php_module ${phpModulePath}
${user === null ? '' : `User ${user}\nGroup ${group}\n`}
# Debian's prefork defaults (mods-available/mpm_prefork.conf) unless the target says otherwise; a pool larger
# than 256 processes needs ServerLimit as large.
StartServers ${settings.startServers}
MinSpareServers ${settings.minSpareServers}
MaxSpareServers ${settings.maxSpareServers}
ServerLimit ${Math.max(256, settings.maxRequestWorkers)}
MaxRequestWorkers ${settings.maxRequestWorkers}
MaxConnectionsPerChild ${settings.maxConnectionsPerChild}
KeepAlive ${settings.keepAlive ? 'On' : 'Off'}
MaxKeepAliveRequests ${settings.maxKeepAliveRequests}
KeepAliveTimeout ${settings.keepAliveTimeoutSec}
Timeout 300
ServerTokens Prod

${fs.existsSync('/etc/mime.types') ? 'TypesConfig /etc/mime.types\n' : ''}DocumentRoot "${root}"
<Directory />
  Options None
  AllowOverride None
  Require all denied
</Directory>
<Directory "${root}">
  Options None
  AllowOverride None
  Require all granted
</Directory>
DirectoryIndex index.php index.html
${fallback ? 'FallbackResource /index.php\n' : ''}<FilesMatch "\\.php$">
  SetHandler application/x-httpd-php
</FilesMatch>
`
}

/** Every directory under `dir` 755 and file 644: readable by Apache's children whoever they run as. */
function readableByAll (dir) {
  fs.chmodSync(dir, 0o755)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) readableByAll(full)
    else fs.chmodSync(full, 0o644)
  }
}

/** The first directory above `dir` that others may not enter (no o+x), or null. */
function closedAncestor (dir) {
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return current
    if (current === path.dirname(current)) return null
  }
}

/** The first `count` lines of Apache's error log (why it would not start), or ''. */
function errorLogHead (file, count = 8) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').slice(0, count).join('\n')
  } catch {
    return ''
  }
}

/**
 * Starts Apache httpd with PHP on 127.0.0.1:`port`; resolves once it answers, to `{ pid, url, port, dir,
 * versions: { apache, php }, settings, errorLog, stop() }`. `pid` is Apache's parent process (its children,
 * the prefork pool, are its own). Apache stops when this process exits.
 * @param {object} options
 * @param {string} options.dir a directory of Apache's own (configuration, pages, logs, pid)
 * @param {number} options.port where it listens (loopback)
 * @param {string} [options.root] a directory of PHP pages to serve (copied); else `reply`
 * @param {{ status: number, contentType?: string, body: Buffer|string }} [options.reply] what every request gets
 * @param {object} [options.prefork] StartServers and the rest (startServers, maxRequestWorkers, keepAlive...)
 * @param {string} [options.readyPath] the path polled until Apache answers (default '/')
 */
async function startApachePhp ({ dir, port, root, reply, prefork = {}, readyPath = '/', onProgress, env = process.env, readyTimeoutMs = 30_000, modulesDir = MODULES_DIR }) {
  if ((root === undefined) === (reply === undefined)) throw errors.invalidOption('root or reply', { root, reply }, 'either a directory of PHP pages or a reply to serve, not both nor neither')
  if (root !== undefined && !fs.existsSync(root)) throw errors.invalidOption('root', root, 'a directory of PHP pages')
  for (const key of Object.keys(prefork)) {
    if (!PREFORK_KEYS.includes(key)) throw errors.invalidOption(`prefork.${key}`, prefork[key], `one of ${PREFORK_KEYS.join(', ')}`)
  }
  const binary = await ensureApachePhp({ onProgress, env, modulesDir })
  const modulePath = phpModule(modulesDir)
  fs.mkdirSync(path.join(dir, 'run'), { recursive: true })
  fs.chmodSync(dir, 0o755)
  const pages = path.join(dir, 'htdocs')
  if (root !== undefined) {
    fs.cpSync(root, pages, { recursive: true, dereference: true })
  } else {
    fs.mkdirSync(pages, { recursive: true })
    fs.writeFileSync(path.join(pages, 'index.php'), replyPage(reply))
    fs.writeFileSync(path.join(pages, 'reply.body'), reply.body)
  }
  readableByAll(pages)
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const user = asRoot ? accountOf(['www-data', 'nobody'], '/etc/passwd') : null
  const group = asRoot ? accountOf(['www-data', 'nogroup', 'nobody'], '/etc/group') : null
  const closed = user === null ? null : closedAncestor(pages)
  if (closed !== null) {
    throw errors.invalidOption('dir', dir, `a directory whose parents anyone may enter (Apache's children run as ${user}, and ${closed} is closed to them)`)
  }
  const configFile = path.join(dir, 'apache2.conf')
  const errorLog = path.join(dir, 'error.log')
  const settings = { ...PREFORK_DEFAULTS, ...KEEPALIVE_DEFAULTS, ...prefork }
  const fallback = root === undefined
  const configured = { dir, port, root: pages, modulesDir, phpModulePath: modulePath, prefork, fallback, user, group }
  fs.writeFileSync(configFile, apacheConfig(configured))
  const args = ['-d', dir, '-f', configFile]
  try {
    await run(binary, [...args, '-t'], { env })
  } catch (err) {
    throw errors.apacheStart(`its configuration ${configFile} does not pass \`apache2 -t\`, which printed`, err.output)
  }
  // A process group of its own: whatever happens to the parent, its prefork children go with the group.
  const child = spawn(binary, [...args, '-DFOREGROUND'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  let output = ''
  child.stderr.on('data', (chunk) => { output = (output + chunk).slice(-4000) })
  let exited = null
  child.once('exit', (code, signal) => { exited = signal || `code ${code}` })
  child.once('error', (err) => { exited = err.message })
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {}
  }
  process.on('exit', killGroup)
  let stopped = null
  const stop = () => (stopped ??= (async () => {
    process.removeListener('exit', killGroup)
    if (child.pid === undefined) return
    // SIGTERM: Apache's parent stops its children, then itself; any child left behind goes with the group.
    if (exited === null) await terminate(child.pid, { graceMs: 10_000 })
    killGroup()
  })())
  const failed = (reason) => errors.apacheStart(`${reason}; the first lines of its error log (${errorLog})`, errorLogHead(errorLog) || output)

  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    if (exited !== null) throw failed(`exited (${exited}) before it answered on ${url}`)
    try {
      const response = await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(5000) })
      await response.arrayBuffer()
      break
    } catch {}
    if (Date.now() > deadline) {
      await stop()
      throw failed(`did not answer on ${url} within ${readyTimeoutMs} ms`)
    }
    await sleep(50)
  }
  return { pid: child.pid, url, port, dir, versions: await versions(binary, modulePath), settings, errorLog, stop }
}

module.exports = {
  ensureApachePhp, startApachePhp, apacheConfig, replyPage, phpModule, APACHE_CANDIDATES, PREFORK_DEFAULTS
}
