'use strict'

// Workloads of a real API (kernel/request-flow.js): per-request values, setupRequest, values captured from
// answers, a session per connection, and every answer checked against its request's status. Against an API with
// authentication (test/fixtures/auth-api: Express 5, bcryptjs, bearer tokens) and a server-rendered app with
// sessions and CSRF (test/fixtures/csrf-app: Express 4, express-session, lusca).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const http = require('node:http')
const { checkWorkload, requestsOf } = require('../lib/kernel/workload')
const { runAutocannon } = require('../lib/kernel/load')
const { CookieJar } = require('../lib/kernel/request-flow')
const { benchConfig } = require('../lib/bench/config')
const { temporaryDir, runCli } = require('../../../test/support')

const AUTH_API = path.join(__dirname, 'fixtures', 'auth-api')
const CSRF_APP = path.join(__dirname, 'fixtures', 'csrf-app')

const check = (source) => checkWorkload(source, { file: '/x/nodebench.workload.js', shown: 'nodebench.workload.js' })
const coded = (message) => (err) => err.code === 'NB_ERR_WORKLOAD' && message.test(err.message)

test('the keys of requests that change: checked at load, each mistake one coded line naming the scenario and the field', () => {
  const workload = check({
    scenarios: {
      login: {
        session: { requests: [{ path: '/login', capture: { csrf: { body: 'name="_csrf" value="([^"]+)"' } } }] },
        request: [
          { path: '/form', capture: { token: { json: 'data.token' }, etag: { header: 'ETag' } } },
          { method: 'POST', path: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: { email: 'a b@x.org', _csrf: '{csrf}' }, status: 302 }
        ]
      },
      paged: { session: true, request: { path: '/items', setupRequest: (request) => request } }
    }
  })
  const login = workload.scenarios.login
  assert.deepEqual([login.session.cookies, login.session.requests.length, login.requests.default.before.length], [true, 1, 1])
  assert.ok(login.session.requests[0].capture.csrf.body instanceof RegExp)
  assert.deepEqual(login.requests.default.before[0].capture, { token: { json: 'data.token' }, etag: { header: 'etag' } })
  // A form's object body is sent as the form, a {name} kept to be filled in (encoded) per request.
  assert.equal(login.requests.default.body, 'email=a+b%40x.org&_csrf={csrf}')
  assert.deepEqual(workload.scenarios.paged.session, { cookies: true, requests: [] })

  for (const [scenario, message] of [
    [{ request: { path: '/', capture: { csrf: /x/ } } }, /scenario 'a': request\.capture\.csrf must be one of \{ body: \/regex\/ \} \(its first group\), \{ json: 'path\.in\.body' \}, \{ header: 'name' \}/],
    [{ request: { path: '/', capture: { csrf: { body: '(' } } } }, /scenario 'a': request\.capture\.csrf\.body is not a regular expression: /],
    [{ request: { path: '/', capture: { 'x-y': { json: 'a' } } } }, /scenario 'a': request\.capture\.x-y: a captured name is letters, digits and _/],
    [{ request: { path: '/{$sequence}' } }, /scenario 'a': request uses \{\$sequence\}: a per-request value is one of \{\$seq\}, \{\$uuid\}$/],
    [{ request: { path: '/', setupRequest: 'page' } }, /scenario 'a': request\.setupRequest must be a function \(request, \{ seq, uuid, values, captured, connection \}\)/],
    [{ request: [] }, /scenario 'a': request must be a request or a non-empty list of them; received \[\]/],
    [{ request: [{ path: '/' }, { path: 'b' }] }, /scenario 'a': request\[1\]\.path must be a path starting with '\/'/],
    [{ request: { path: '/' }, session: 'yes' }, /scenario 'a': session must be true or an object with cookies and requests/],
    [{ request: { path: '/' }, session: { jar: true } }, /scenario 'a': session: unknown key 'jar'; expected one of cookies, requests/],
    [{ request: { path: '/' }, session: { requests: [{ path: '/login', status: 'ok' }] } }, /scenario 'a': session\.requests\[0\]\.status must be an HTTP status/],
    [{ request: { path: '/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: { a: { b: 1 } } } }, /request\.body of a form \(application\/x-www-form-urlencoded\) must be an object of names to strings/]
  ]) {
    assert.throws(() => check({ scenarios: { a: scenario } }), coded(message), JSON.stringify(scenario))
  }
})

test('a connection\'s cookie jar keeps what Set-Cookie gives and drops what expires', () => {
  const jar = new CookieJar()
  assert.equal(jar.header(), null)
  jar.store(['connect.sid=s%3Aabc.def; Path=/; HttpOnly', 'theme=dark; Max-Age=3600'])
  assert.equal(jar.header(), 'connect.sid=s%3Aabc.def; theme=dark')
  jar.store(['theme=; Max-Age=0', 'connect.sid=s%3Anew; Path=/', 'old=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT'])
  assert.equal(jar.header(), 'connect.sid=s%3Anew')
})

test('each request built by setupRequest on a real server: its number, its values, and a failure that stops the load', async (t) => {
  const seen = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers['x-tenant']}`)
    res.end('ok')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  const base = `http://127.0.0.1:${server.address().port}`
  const workload = check({
    scenarios: {
      paged: { request: { path: '/items', headers: { 'x-tenant': '{tenant}' }, setupRequest: (request, { seq, values }) => ({ ...request, path: `/items?page=${seq % 2}&of=${values.tenant}` }) } },
      broken: { request: { path: '/', setupRequest: () => { throw new Error('no page left') } } },
      later: { request: { path: '/', setupRequest: async (request) => request } }
    }
  })
  const result = await runAutocannon(base, requestsOf(workload.scenarios.paged, 'default', { tenant: 'acme' }), { connections: 1, amount: 4, phase: 'warm-up' })
  assert.deepEqual(result.answers, { phase: 'warm-up', answered: 4, unexpected: 0, first: null })
  assert.equal(seen.length, 4)
  assert.ok(seen.every((line) => /^GET \/items\?page=[01]&of=acme acme$/.test(line)), seen.join('; '))
  assert.equal(new Set(seen.map((line) => line.split(' ')[1])).size, 2, 'pages alternate with {$seq}')
  await assert.rejects(runAutocannon(base, requestsOf(workload.scenarios.broken, 'default'), { connections: 1, amount: 100 }),
    (err) => err.code === 'NB_ERR_WORKLOAD_HOOK' && err.message === "workload scenario 'broken' (default): request.setupRequest failed: no page left")
  await assert.rejects(runAutocannon(base, requestsOf(workload.scenarios.later, 'default'), { connections: 1, amount: 100 }),
    (err) => err.code === 'NB_ERR_WORKLOAD_HOOK' && /request\.setupRequest must return the request \(\{ method, path, headers, body \}, synchronously, a path starting with '\/'\); returned a promise$/.test(err.message))
  assert.equal(seen.length, 4 + 2, 'a failing setupRequest stops the load at its first request (the stand-in autocannon sends instead)')
})

test('bench says once when --quick\'s process counts cannot be measured: a --cmd without {processes}', () => {
  const workload = path.join(AUTH_API, 'nodebench.workload.js')
  const quick = benchConfig({ cmd: 'node server.js --port {port}', url: 'http://127.0.0.1', quick: true, workload })
  assert.deepEqual([quick.processes, quick.notes], [[1], ['--quick measures 1 and 2 processes, but --cmd has no {processes}: only 1 process ' +
    'is measured (put {processes} where your command takes its process count)']])
  const counted = benchConfig({ cmd: 'node server.js --port {port} --workers {processes}', url: 'http://127.0.0.1', quick: true, workload })
  assert.deepEqual([counted.processes, counted.notes], [[1, 2], []])
})

test('an API with authentication: unique registers, a 400 on purpose, login, a paged list, a user created then read back', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-flow-')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" server.js --port {port}`, '--url', 'http://127.0.0.1',
    '--reps', '1', '--warmup', '4', '--out', out], { cwd: AUTH_API })
  assert.equal(run.code, 0, run.stderr)
  // The run's process counts, but the command has no {processes}: said once, before it starts.
  assert.equal(run.stderr.split('\n').filter((line) => line.includes('--cmd has no {processes}')).length, 1)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  assert.equal(results.schema, 3)
  const cell = (scenario) => results.cells.find((c) => c.scenario === scenario)
  for (const c of results.cells) assert.deepEqual([c.scenario, c.status, c.unexpectedStatus, c.firstUnexpected], [c.scenario, 'ok', 0, null])
  // {$seq} and {$uuid}: every register a new email, the warm-up's and the probe's included.
  assert.deepEqual(cell('register').statusCodes, { 201: 20 })
  assert.deepEqual(cell('login').statusCodes, { 200: 20 })
  // The token the scenario's setup logged in for, sent on every request (401 otherwise), pages by setupRequest.
  assert.deepEqual(cell('user-list').statusCodes, { 200: 20 })
  // A register, then a read of the id its answer gave, in turn on each connection: the operation is the read.
  const createRead = cell('user-create-read')
  assert.deepEqual([createRead.statusCodes, createRead.operation], [{ 200: 10, 201: 10 }, { method: 'GET', route: '/v1/users/:userId', format: 'json' }])

  // A 400 the scenario expects is not an error: not in the operation's errors, not failed in the tables.
  const taken = cell('register-taken')
  assert.deepEqual(taken.statusCodes, { 400: 20 })
  const operation = taken.breakdown.operations.find((o) => o.route === '/v1/auth/register')
  assert.deepEqual([operation.count, operation.errors, operation.expectedErrors], [20, 0, 20])
  const markdown = fs.readFileSync(path.join(out, 'report.md'), 'utf8')
  assert.match(markdown, /^POST \/v1\/auth\/register \\\[json\\\]: 20 requests, 0 errors \(20 more answered 400, as the workload expects\); /m)
  assert.match(markdown, /^\| register \\\[register-taken\\\] \| json \| 1 \| ok \|[^\n]*\| 20 \| 0 \| 0 \| 20 \(400: 20, 400 expected\) \|/m)
  assert.doesNotMatch(markdown, /had errors or non-2xx responses/)
  // Two scenarios of one route and label: every heading names which (terminal, report.md, report.html).
  assert.match(run.stdout, /^register \(json\): POST \/v1\/auth\/register \[json\]: 20 requests, 0 errors,/m)
  assert.match(run.stdout, /^register \[register-taken\] \(json\): POST \/v1\/auth\/register \[json\]: 20 requests, 0 errors,[^\n]*\n {2}\(20 answered 400 as the workload expects: not counted as errors\)$/m)
  assert.match(markdown, /^### register \(json\), 1 process$/m)
  assert.match(markdown, /^### register \\\[register-taken\\\] \(json\), 1 process$/m)
  const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(html, /<h3>register \[register-taken\] \(json\), 1 process<\/h3>/)
})

test('a request sent again the same: the warm-up\'s failure names its request and body; a measured one is counted and named', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-flow-')
  const workload = path.join(dir, 'nodebench.workload.json')
  const register = { method: 'POST', path: '/v1/auth/register', body: { name: 'same', email: 'same@example.com', password: 'password1' }, status: 201 }
  fs.writeFileSync(workload, JSON.stringify({
    formats: ['json'],
    scenarios: {
      'register-same': { connections: 1, amount: 5, warmup: 3, request: register },
      'register-unwarmed': { connections: 1, amount: 5, warmup: 0, request: register }
    }
  }))
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(AUTH_API, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', workload, '--reps', '1', '--processes', '1', '--out', out])
  assert.equal(run.code, 1, run.stderr)
  // The probe registered the email; the warm-up's first request is refused: the workload's doing, said so.
  assert.match(run.stderr, /^nodebench bench: \[1\/2\] failed: scenario 'register-same' \(json\): warm-up request 1 of 3 \(POST \/v1\/auth\/register\) answered 400, expected 201 \(request\.status\): "\{\\"code\\":400,\\"message\\":\\"Email already taken\\"\}" \(3 of 3 answers not as expected\); the probe before it answered as expected: an app may refuse a request sent again the same \(a unique email\), give each its own values \(\{\$seq\}, \{\$uuid\} or setupRequest: docs\/workloads\.md\)$/m)
  // Without a warm-up, the measured answers are counted, and the first named with its body.
  assert.match(run.stderr, /^nodebench bench: register-unwarmed \(json\), 1 process: 5 of 5 answers not as the workload expects; the first: repetition 1 request 1 \(POST \/v1\/auth\/register\) answered 400, expected 201 \(request\.status\): "\{\\"code\\":400,\\"message\\":\\"Email already taken\\"\}"$/m)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  const [same, unwarmed] = results.cells
  assert.equal(same.status, 'failed')
  assert.match(same.failure, /^scenario 'register-same' \(json\): warm-up request 1 of 3/)
  assert.deepEqual([unwarmed.status, unwarmed.unexpectedStatus, unwarmed.statusCodes], ['ok', 5, { 400: 5 }])
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /5 of 5 responses were not 2xx \(400: 5\); its requests\/s and latency include them\. The first: repetition 1 request 1 \(POST/)
})

test('a server-rendered app: a cookie jar per connection, the CSRF token captured from the login page, a session logged in once', { timeout: 300_000 }, async (t) => {
  const dir = temporaryDir(t, 'nodebench-flow-')
  const out = path.join(dir, 'run')
  const run = await runCli(['bench', '--cmd', `"${process.execPath}" server.js --port {port}`, '--url', 'http://127.0.0.1',
    '--reps', '1', '--warmup', '4', '--processes', '1', '--out', out], { cwd: CSRF_APP })
  assert.equal(run.code, 0, run.stderr)
  const results = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'))
  const [login, account] = results.cells
  // The page, then the login with its token (lusca answers 403 to a wrong one): the login's own session
  // is new each time, the next page's token its own.
  assert.deepEqual([login.status, login.unexpectedStatus, login.statusCodes], ['ok', 0, { 200: 10, 302: 10 }])
  assert.deepEqual([login.operation.method, login.operation.route], ['POST', '/login'])
  // Logged in once per connection before the load: every account page is the logged-in one (302 otherwise).
  assert.deepEqual([account.status, account.unexpectedStatus, account.statusCodes], ['ok', 0, { 200: 20 }])
  assert.deepEqual(account.operation, { method: 'GET', route: '/account', format: 'html' })

  // Without a cookie jar, lusca refuses the session's login; a token that is not on the page is named as such.
  const workload = path.join(dir, 'nodebench.workload.js')
  fs.writeFileSync(workload, `module.exports = require(${JSON.stringify(path.join(CSRF_APP, 'nodebench.workload.js'))})
const { account, login } = module.exports.scenarios
module.exports.scenarios = {
  'no-jar': { ...account, session: { cookies: false, requests: account.session.requests } },
  'wrong-token': { ...login, request: [{ ...login.request[0], capture: { csrf: { body: /name="csrf-token" content="([^"]+)"/ } } }, login.request[1]] }
}
`)
  const failing = await runCli(['bench', '--cmd', `"${process.execPath}" ${path.join(CSRF_APP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1',
    '--workload', workload, '--reps', '1', '--warmup', '4', '--processes', '1', '--out', path.join(dir, 'failing')])
  assert.equal(failing.code, 1)
  assert.match(failing.stderr, /^nodebench bench: \[1\/2\] failed: scenario 'no-jar' \(html\): connection 1's session request 2 \(POST \/login\) answered 403, expected 302 \(session\.requests\[1\]\.status\): /m)
  assert.match(failing.stderr, /^nodebench bench: \[2\/2\] failed: scenario 'wrong-token' \(html\): request\[0\]\.capture\.csrf: probe request 1 \(GET \/login\) answered 200 with no match of \/name="csrf-token" content="\(\[\^"\]\+\)"\/ in its body: "<!doctype html>/m)
})
