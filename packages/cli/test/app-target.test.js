'use strict'

// How every command names the app it starts or reaches (kernel/app-target.js), and how paths are shown
// (kernel/paths.js): one option set, one set of rules, the same messages from bench, flame and browser.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { appTargetOf, commandLine, baseAt, nodeCommand, shellWords } = require('../lib/kernel/app-target')
const { displayPath } = require('../lib/kernel/paths')
const { startApp } = require('../lib/kernel/app-process')
const { startFailure } = require('../lib/kernel/app-output')
const { temporaryDir } = require('../../../test/support')
const { parseBenchArguments } = require('../lib/commands/bench')
const { parseFlameArguments } = require('../lib/commands/flame')
const { parseBrowserArguments } = require('../lib/commands/browser')

const SHOP = path.join(__dirname, 'fixtures', 'shop')
const SHOP_WORKLOAD = path.join(SHOP, 'nodebench.workload.js')
const usage = (message) => (err) => err.code === 'NB_ERR_USAGE' && message.test(err.message)

test('the three ways to name an app: a directory, a command with {port} and {processes}, a URL', () => {
  assert.deepEqual({ ...appTargetOf({ app: SHOP }, { command: 'bench' }) }, { app: SHOP, cmd: null, url: null, starts: true, stopGraceMs: 5000 })
  const command = appTargetOf({ cmd: 'node s.js --port {port} -w {processes}', url: 'http://127.0.0.1/' }, { command: 'bench' })
  assert.deepEqual({ ...command }, { app: null, cmd: 'node s.js --port {port} -w {processes}', url: 'http://127.0.0.1', starts: true, stopGraceMs: 5000 })
  assert.equal(commandLine(command, { port: 4321, processes: 2 }), 'node s.js --port 4321 -w 2')
  assert.equal(baseAt(command, 4321), 'http://127.0.0.1:4321')
  assert.equal(baseAt({ url: 'https://localhost:1/app/' }, 99), 'https://localhost:99/app')
  assert.equal(baseAt({ url: null }, 99), 'http://127.0.0.1:99', 'without --url, loopback')
  assert.deepEqual({ ...appTargetOf({ cmd: 'node s.js --port {port}' }, { command: 'bench' }) }, { app: null, cmd: 'node s.js --port {port}', url: null, starts: true, stopGraceMs: 5000 })
  assert.deepEqual({ ...appTargetOf({ url: 'http://h:3000' }, { command: 'browser' }) }, { app: null, cmd: null, url: 'http://h:3000', starts: false, stopGraceMs: 5000 })
})

test('every command refuses the same combinations with the same words', () => {
  for (const [parse, command] of [[parseBenchArguments, 'bench'], [parseFlameArguments, 'flame'], [parseBrowserArguments, 'browser']]) {
    for (const [argv, message] of [
      [['--app', 'a', '--cmd', 'node b.js --port {port}'], /--app excludes --cmd and --url/],
      [['--app', 'a', '--url', 'http://x'], /--app excludes --cmd and --url/],
      [['--url', 'nowhere'], /--url 'nowhere' is not a URL; expected e\.g\. http:\/\/127\.0\.0\.1:3000/],
      [['--url', 'ftp://x'], /--url 'ftp:\/\/x' is not an http\(s\) URL/],
      [['--cmd', ' '], /--cmd is empty/],
      [['--colour'], /unknown option '--colour'$/]
    ]) {
      assert.throws(() => parse(argv), (err) => usage(message)(err) && err.message.startsWith(`${command}: `), `${command} ${argv.join(' ')}`)
    }
  }
  // A command whose port nodebench cannot know: bench and browser need --url, flame learns it from the app.
  assert.throws(() => parseBenchArguments(['--cmd', 'node app.js', '--workload', SHOP_WORKLOAD]), usage(/--cmd needs --url/))
  assert.throws(() => parseBrowserArguments(['--cmd', 'node app.js', '--workload', SHOP_WORKLOAD]), usage(/--cmd needs --url/))
  assert.equal(parseFlameArguments(['--cmd', 'node app.js', '--workload', SHOP_WORKLOAD]).config.target.cmd, 'node app.js')
})

test('flame takes the app as bench does: --cmd with {port} and --url; --url alone is refused, as is a non-Node.js command', () => {
  const argv = ['--cmd', `"${process.execPath}" ${path.join(SHOP, 'server.js')} --port {port}`, '--url', 'http://127.0.0.1', '--workload', SHOP_WORKLOAD]
  const bench = parseBenchArguments([...argv, '--processes', '1']).config
  const flame = parseFlameArguments(argv).config
  assert.deepEqual({ ...flame.target }, { ...bench.target })
  // V8's profiler (the default) takes the command as bench runs it; 0x and clinic run its Node.js script.
  assert.equal(flame.argv, null)
  assert.deepEqual(parseFlameArguments([...argv, '--profiler', '0x']).config.argv, [path.join(SHOP, 'server.js'), '--port', '{port}'])
  assert.equal(flame.workload.name, 'shop')
  assert.throws(() => parseFlameArguments(['--url', 'http://127.0.0.1:3000', '--workload', SHOP_WORKLOAD]),
    usage(/^flame: flame profiles an app nodebench starts itself, under the profiler: give --app <dir> or --cmd "node <script> \.\.\.", not --url alone$/))
  for (const cmd of ['node app.js | tee log', 'PORT=1 node app.js', 'npm start']) {
    assert.equal(parseFlameArguments(['--cmd', cmd, '--workload', SHOP_WORKLOAD]).config.target.cmd, cmd)
  }
  for (const cmd of ['python app.py', 'node app.js | tee log', 'PORT=1 node app.js', 'node', "node 'unterminated.js"]) {
    assert.throws(() => parseFlameArguments(['--cmd', cmd, '--workload', SHOP_WORKLOAD, '--profiler', 'clinic']),
      usage(/--cmd must be a Node\.js script and its arguments, .*; or use --profiler v8 \(the default\), which profiles the Node\.js process any --cmd starts$/), cmd)
  }
  // bench --flame holds the same rule, before anything starts.
  assert.throws(() => parseBenchArguments(['--url', 'http://127.0.0.1:3000', '--workload', SHOP_WORKLOAD, '--flame']),
    usage(/^bench: --flame profiles an app nodebench starts itself/))
  assert.equal(parseBenchArguments([...argv, '--flame']).config.flame.duration, 10)
})

test('a command as the shell splits it: quotes and backslashes; null when a quote is left open', () => {
  assert.deepEqual(shellWords('"/opt/my node/bin/node" \'a b.js\' --name "x \\"y\\"" c\\ d'), ['/opt/my node/bin/node', 'a b.js', '--name', 'x "y"', 'c d'])
  assert.deepEqual(shellWords('  node   s.js  '), ['node', 's.js'])
  assert.deepEqual(shellWords("node ''"), ['node', ''])
  assert.equal(shellWords('node "s.js'), null)
  const named = { command: 'flame', what: 'flame profiles' }
  assert.deepEqual(nodeCommand({ app: null, cmd: '/usr/local/bin/node s.mjs --port={port} --processes {processes}' }, named),
    ['s.mjs', '--port={port}', '--processes', '{processes}'])
  assert.deepEqual(nodeCommand({ app: '/srv/app', cmd: null }, named), [path.join('/srv/app', 'server.js'), '--port', '0'])
})

test('paths: relative under the current directory, absolute elsewhere, never ../..', () => {
  const cwd = path.join(os.tmpdir(), 'nodebench-cwd')
  assert.equal(displayPath(path.join(cwd, 'runs', 'r', 'results.json'), cwd), path.join('runs', 'r', 'results.json'))
  assert.equal(displayPath(cwd, cwd), '.')
  assert.equal(displayPath(path.join(cwd, '..', 'elsewhere', 'results.json'), cwd), path.join(os.tmpdir(), 'elsewhere', 'results.json'))
  assert.equal(displayPath(path.join(cwd, '..foo', 'x'), cwd), path.join('..foo', 'x'), 'a folder named ..foo is inside')
  assert.equal(displayPath('runs/x', cwd), path.join('runs', 'x'), 'a relative path is taken from cwd')
})

test('--app names what is wrong with the folder: missing, a file, or without the server.js it starts', (t) => {
  const dir = temporaryDir(t, 'nodebench-app-target-')
  const missing = path.join(dir, 'no-such-dir')
  assert.throws(() => appTargetOf({ app: missing }, { command: 'bench' }),
    usage(new RegExp(`^bench: --app ${missing.replace(/[./]/g, '\\$&')}: no such folder; expected the folder of an app with a server\\.js`)))
  fs.writeFileSync(path.join(dir, 'app.js'), '')
  assert.throws(() => appTargetOf({ app: path.join(dir, 'app.js') }, { command: 'flame' }), usage(/^flame: --app .*app\.js is a file, not a folder; to start a script, use --cmd/))
  assert.throws(() => appTargetOf({ app: dir }, { command: 'browser' }), usage(/^browser: --app .* has no server\.js: --app starts an app folder's server\.js/))
})

test('an app that fails to start is shown from its first error line, not its stack\'s end', async (t) => {
  const dir = temporaryDir(t, 'nodebench-app-start-')
  const cases = {
    'missing-module': ["require('./lib/setup')", "require('no-such-module-for-nodebench')"],
    'syntax-error': ['const port = 1', 'const options = {', '  port: port host: 2', '}'],
    'type-error': ['const config = null', 'console.log("starting")', 'config.port.toString()']
  }
  for (const [name, lines] of Object.entries(cases)) {
    fs.mkdirSync(path.join(dir, name, 'lib'), { recursive: true })
    fs.writeFileSync(path.join(dir, name, 'server.js'), name === 'missing-module' ? lines[0] : lines.join('\n'))
    fs.writeFileSync(path.join(dir, name, 'lib', 'setup.js'), lines[1] ?? '')
  }
  // What Node.js prints, as the excerpt keeps it.
  const said = (name) => startFailure(spawnSync(process.execPath, [path.join(dir, name, 'server.js')], { encoding: 'utf8' }).stderr)
  assert.equal(said('missing-module').split('\n').slice(0, 4).join('\n'),
    `Error: Cannot find module 'no-such-module-for-nodebench'\nRequire stack:\n- ${path.join(dir, 'missing-module', 'lib', 'setup.js')}\n- ${path.join(dir, 'missing-module', 'server.js')}`)
  assert.match(said('syntax-error'), new RegExp(`^${path.join(dir, 'syntax-error', 'server.js').replace(/[./]/g, '\\$&')}:3\n  port: port host: 2\n +\\^+\nSyntaxError: Unexpected identifier 'host'$`))
  assert.match(said('type-error'), /^.*server\.js:3\n.*\n.*\^\nTypeError: Cannot read properties of null \(reading 'port'\)\nat Object\.<anonymous> \(.*server\.js:3:\d+\)$/)
  assert.equal(startFailure('starting\nstill starting\n'), 'starting\nstill starting', 'no error line: the last lines')

  // As bench and browser say it: the app directory's start, and a command's.
  await assert.rejects(startApp(appTargetOf({ app: path.join(dir, 'missing-module') }, { command: 'bench' }), { processes: 1, env: process.env }),
    (err) => err.code === 'NB_ERR_APP_START' && /^the app exited \(code 1\) before listening:\n {2}Error: Cannot find module 'no-such-module-for-nodebench'\n {2}Require stack:/.test(err.message))
  const command = appTargetOf({ cmd: `"${process.execPath}" ${path.join(dir, 'type-error', 'server.js')} --port {port}` }, { command: 'bench' })
  await assert.rejects(startApp(command, { processes: 1, env: process.env }),
    (err) => err.code === 'NB_ERR_APP_START' && /^the app exited \(code 1\) before http:\/\/127\.0\.0\.1:\d+ answered:\n(.*\n){3} {2}TypeError: Cannot read properties of null/.test(err.message))
})
