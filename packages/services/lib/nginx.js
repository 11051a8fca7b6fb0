'use strict'

const fs = require('node:fs')
const path = require('node:path')
const { spawn, execFile } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { ensureDebianExecutable } = require('./debian-package')
const { terminate } = require('./processes')
const errors = require('./errors')

// nginx as the load balancer in front of independent instances of an app (bench's `--topology nginx`), as
// the TU Berlin study ran it: an upstream with `least_conn` (or round robin) and `max_fails=3
// fail_timeout=30s` per server. Debian's nginx (or NGINX_PATH) with a configuration nodebench writes in a
// directory of its own, on loopback; its own pid file, logs and temporary files there, never /etc/nginx's.
//
// Its access log says, per request, when it ended, what the client got, which instances nginx tried and
// what each answered ($upstream_addr, $upstream_status): which instance served what, and what nginx retried
// on another instance. An error page nginx writes itself (no instance answered) carries PROXY_ERROR_MARK,
// so a client can tell a 502 of nginx's from a 5xx of the app.

const NGINX_CANDIDATES = Object.freeze(['/usr/sbin/nginx'])
const BALANCERS = Object.freeze(['least_conn', 'round_robin'])
const PROXY_ERROR_MARK = 'nodebench: nginx answered this itself: no instance of the app did'
const PROXY_ERROR_STATUSES = Object.freeze([502, 503, 504])
// Fields separated by `|`: $upstream_addr and $upstream_status list attempts separated by ", " (and by " : "
// after an internal redirect).
const LOG_FORMAT = '$msec|$status|$upstream_addr|$upstream_status'

/**
 * The path of an nginx executable: NGINX_PATH, else /usr/sbin/nginx, else Debian's nginx package installed
 * with apt-get (as root only). Options as ensureChromium's.
 */
function ensureNginx ({ candidates = NGINX_CANDIDATES, ...options } = {}) {
  return ensureDebianExecutable({
    packageName: 'nginx',
    envVar: 'NGINX_PATH',
    candidates,
    purpose: 'to balance load over independent instances (bench --topology nginx)',
    missing: errors.nginxMissing
  }, options)
}

// A reload's old workers close their idle keep-alive connections at once: a request a client sends on one at
// that moment is reset (nginx/nginx#437). nginx 1.27.4 added keepalive_min_timeout, which keeps such a
// connection open for that long and answers its next request with "Connection: close"; older versions
// (Debian 12 has 1.22) have no remedy but a client that retries, which autocannon does not: bench counts
// such resets, and attributes those at a reload to it.
const KEEPALIVE_MIN_TIMEOUT_SINCE = Object.freeze([1, 27, 4])
const KEEPALIVE_MIN_TIMEOUT = '    keepalive_min_timeout 2s;'
const RELOAD_RACE_NOTE = '    # keepalive_min_timeout (nginx 1.27.4): not in this version, so a reload can reset a request on an idle keep-alive connection.'

function atLeast (version, wanted) {
  for (let i = 0; i < wanted.length; i++) {
    if ((version[i] ?? 0) !== wanted[i]) return (version[i] ?? 0) > wanted[i]
  }
  return true
}

/** The version `nginx -v` prints, as [major, minor, patch]. */
async function nginxVersion (binary) {
  const text = await run(binary, ['-v'])
  const match = /nginx\/(\d+)\.(\d+)\.(\d+)/.exec(text)
  if (match === null) throw errors.nginxStart('printed no version for `nginx -v`', text)
  return match.slice(1).map(Number)
}

/** nginx.conf for `upstreams` (['127.0.0.1:3001', ...]) behind 127.0.0.1:`port`, for nginx `version`. */
function nginxConfig ({ dir, port, upstreams, balancer, version = [1, 22, 1] }) {
  const servers = upstreams.map((address) => `    server ${address} max_fails=3 fail_timeout=30s;`).join('\n')
  // One named location per status, so the client gets nginx's own status with the mark.
  const errorPages = PROXY_ERROR_STATUSES.map((status) => `    error_page ${status} @nginx_${status};`).join('\n')
  const errorLocations = PROXY_ERROR_STATUSES.map((status) =>
    `    location @nginx_${status} {\n      default_type text/html;\n      return ${status} '<p>${PROXY_ERROR_MARK}</p>\\n';\n    }`).join('\n')
  const temporary = (name) => path.join(dir, 'tmp', name)
  return `# Written by nodebench (bench --topology nginx); rewritten and reloaded when instances change.
daemon off;
master_process on;
worker_processes auto;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'error.log')} notice;

events {
  worker_connections 8192;
}

http {
  server_tokens off;
  access_log off;
  log_format nodebench '${LOG_FORMAT}';
  client_body_temp_path ${temporary('client_body')};
  proxy_temp_path ${temporary('proxy')};
  fastcgi_temp_path ${temporary('fastcgi')};
  uwsgi_temp_path ${temporary('uwsgi')};
  scgi_temp_path ${temporary('scgi')};

  upstream nodebench_instances {
${balancer === 'least_conn' ? '    least_conn;\n' : ''}${servers}
    keepalive 64;
  }

  # Large answers (a 1000-document page) stream through memory buffers, never to a temporary file.
  proxy_max_temp_file_size 0;
  client_body_buffer_size 1m;

  server {
    listen 127.0.0.1:${port} backlog=4096;
    # Clients keep their connections: autocannon writes its next request without waiting to see whether the
    # answer said "Connection: close", so a connection nginx closes after its 1,000th request (the default)
    # would be a reset.
    keepalive_requests 1000000;
${atLeast(version, KEEPALIVE_MIN_TIMEOUT_SINCE) ? KEEPALIVE_MIN_TIMEOUT : RELOAD_RACE_NOTE}
    access_log ${path.join(dir, 'access.log')} nodebench buffer=64k flush=1s;
${errorPages}

${errorLocations}

    location / {
      proxy_pass http://nodebench_instances;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`
}

function run (binary, args) {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { output: stderr }))
      else resolve(stderr)
    })
  })
}

/**
 * Starts nginx on 127.0.0.1:`port` in front of `upstreams`; resolves once it answers, to `{ pid, url, port,
 * dir, version, reloadResetsIdle, accessLog, upstreams(), setUpstreams(upstreams), stop() }`. `setUpstreams`
 * rewrites the configuration, checks it (`nginx -t`) and reloads nginx (SIGHUP: new workers take the new
 * upstreams, the old ones finish the requests they have), resolving once the new workers run. nginx stops
 * when this process exits.
 * @param {object} options
 * @param {string} options.dir a directory of nginx's own (configuration, logs, pid, temporary files)
 * @param {number} options.port where it listens (loopback)
 * @param {string[]} options.upstreams the instances, host:port
 * @param {'least_conn'|'round_robin'} [options.balancer] default least_conn
 */
async function startNginx ({ dir, port, upstreams, balancer = 'least_conn', onProgress, env = process.env, readyTimeoutMs = 30_000 }) {
  if (!BALANCERS.includes(balancer)) throw errors.invalidOption('balancer', balancer, BALANCERS.join(' or '))
  if (!Array.isArray(upstreams) || upstreams.length === 0) throw errors.invalidOption('upstreams', upstreams, 'at least one host:port')
  const binary = await ensureNginx({ onProgress, env })
  const version = await nginxVersion(binary)
  // Run as root, nginx's workers run as nobody: they need to reach the temporary directories.
  fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true })
  fs.chmodSync(dir, 0o755)
  fs.chmodSync(path.join(dir, 'tmp'), 0o755)
  const configFile = path.join(dir, 'nginx.conf')
  const errorLog = path.join(dir, 'error.log')
  let current = upstreams
  const write = (list) => fs.writeFileSync(configFile, nginxConfig({ dir, port, upstreams: list, balancer, version }))
  const check = async () => {
    try {
      await run(binary, ['-t', '-q', '-p', dir, '-e', errorLog, '-c', configFile])
    } catch (err) {
      throw errors.nginxStart(`its configuration ${configFile} does not pass \`nginx -t\``, err.output)
    }
  }
  write(current)
  await check()
  const child = spawn(binary, ['-p', dir, '-e', errorLog, '-c', configFile], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr.on('data', (chunk) => { output = (output + chunk).slice(-4000) })
  let exited = null
  child.once('exit', (code, signal) => { exited = signal || `code ${code}` })
  child.once('error', (err) => { exited = err.message })
  const killOnExit = () => child.kill('SIGKILL')
  process.on('exit', killOnExit)
  let stopped = null
  const stop = () => (stopped ??= (async () => {
    process.removeListener('exit', killOnExit)
    if (child.pid !== undefined && exited === null) await terminate(child.pid)
  })())

  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    if (exited !== null) throw errors.nginxStart(`exited (${exited}) before it answered on ${url}; see ${errorLog}`, output)
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) })
      await response.arrayBuffer()
      break
    } catch {}
    if (Date.now() > deadline) {
      await stop()
      throw errors.nginxStart(`did not answer on ${url} within ${readyTimeoutMs} ms; see ${errorLog}`, output)
    }
    await sleep(50)
  }
  return {
    pid: child.pid,
    url,
    port,
    dir,
    version: version.join('.'),
    /** Whether a reload can reset a request on an idle keep-alive connection (no keepalive_min_timeout). */
    reloadResetsIdle: !atLeast(version, KEEPALIVE_MIN_TIMEOUT_SINCE),
    accessLog: path.join(dir, 'access.log'),
    upstreams: () => [...current],
    async setUpstreams (list) {
      write(list)
      try {
        await check()
      } catch (err) {
        write(current)
        throw err
      }
      current = [...list]
      // Resolves once the new workers run (nginx logs it at notice level): the new upstreams are live.
      const logged = fs.statSync(errorLog).size
      process.kill(child.pid, 'SIGHUP')
      const deadline = Date.now() + readyTimeoutMs
      for (;;) {
        const text = readFrom(errorLog, logged)
        if (/reconfiguring[\s\S]*start worker process \d+/.test(text)) return
        if (/\[(emerg|alert)\]/.test(text) || Date.now() > deadline) {
          throw errors.nginxStart(`did not take the new upstreams within ${readyTimeoutMs} ms; see ${errorLog}`, text)
        }
        await sleep(10)
      }
    },
    stop
  }
}

/** What `file` holds from byte `offset` on. */
function readFrom (file, offset) {
  const fd = fs.openSync(file, 'r')
  try {
    const size = fs.fstatSync(fd).size
    const buffer = Buffer.alloc(Math.max(0, size - offset))
    fs.readSync(fd, buffer, 0, buffer.length, offset)
    return buffer.toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The lines of nginx's access log (LOG_FORMAT): `[{ time, status, attempts: [{ address, status }] }]`, time
 * in ms since the epoch; an attempt's status is null when no answer came (a refused or reset connection).
 */
function parseAccessLog (text) {
  const entries = []
  for (const line of text.split('\n')) {
    const match = /^(\d+\.\d+)\|(\d{3})\|([^|]*)\|([^|]*)$/.exec(line)
    if (match === null) continue
    const addresses = match[3].split(/, | : /)
    const statuses = match[4].split(/, | : /)
    const attempts = []
    for (let i = 0; i < addresses.length; i++) {
      if (addresses[i] === '-' || addresses[i] === '') continue
      const status = Number(statuses[i])
      attempts.push({ address: addresses[i], status: Number.isInteger(status) ? status : null })
    }
    entries.push({ time: Number(match[1]) * 1000, status: Number(match[2]), attempts })
  }
  return entries
}

module.exports = {
  ensureNginx, startNginx, nginxConfig, nginxVersion, parseAccessLog, BALANCERS, PROXY_ERROR_MARK, NGINX_CANDIDATES
}
