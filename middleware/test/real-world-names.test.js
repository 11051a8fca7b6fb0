'use strict'

// An Express 5 app built with the middleware most apps use, from the registry (helmet, cors, morgan,
// compression, cookie-parser, express-session, express-rate-limit, body-parser, passport, express-validator,
// multer): every layer gets a name its user recognises (passport's `authenticate` after what made it:
// `authenticate('session')` for passport.session(), `authenticate('local')`), distinct layers stay distinct
// segments, and a named param callback keeps its name beside its parameter.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { Writable } = require('node:stream')
const express = require('express5')
const helmet = require('helmet')
const cors = require('cors')
const morgan = require('morgan')
const compression = require('compression')
const cookieParser = require('cookie-parser')
const session = require('express-session')
const { rateLimit } = require('express-rate-limit')
const bodyParser = require('body-parser')
const passport = require('passport')
const { Strategy: LocalStrategy } = require('passport-local')
const { body, param, validationResult } = require('express-validator')
const multer = require('multer')
const { nodebenchTrace } = require('..')
const { listen } = require('./helpers')

function buildApp (trace) {
  passport.use(new LocalStrategy((username, password, done) => done(null, password === 'secret' ? { id: 1, username } : false)))
  const app = express()
  app.use(trace)
  app.use(helmet())
  app.use(cors())
  app.use(morgan('tiny', { stream: new Writable({ write (chunk, encoding, done) { done() } }) }))
  app.use(compression())
  app.use(cookieParser())
  app.use(session({ secret: 'nodebench', resave: false, saveUninitialized: false }))
  app.use(rateLimit({ windowMs: 60_000, limit: 10_000 }))
  app.use(bodyParser.json())
  app.use(passport.initialize())
  app.use(passport.session())

  function createUser (req, res) {
    const problems = validationResult(req)
    if (!problems.isEmpty()) return res.status(400).json({ errors: problems.array().map((p) => p.path) })
    res.status(201).json({ id: Number(req.params.id), email: req.body.email })
  }
  app.post('/users/:id', passport.authenticate('local', { session: false }),
    param('id').isInt(), body('email').isEmail(), body('name').isLength({ min: 2 }), createUser)

  const upload = multer({ storage: multer.memoryStorage() })
  app.post('/avatars', upload.single('avatar'), function saveAvatar (req, res) { res.json({ bytes: req.file.size }) })

  const books = express.Router()
  books.param('isbn', function findBook (req, res, next, isbn) {
    req.book = { isbn, title: `Book ${isbn}` }
    next()
  })
  books.get('/:isbn', function showBook (req, res) { res.json(req.book) })
  app.use('/books', books)
  return app
}

test('the usual middleware stack: each layer named, the three validation chains three segments, a named param callback beside its parameter', async () => {
  const trace = nodebenchTrace({ exporter: 'none' })
  const { base, close } = await listen(buildApp(trace))
  try {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/users/${i + 1}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'ada', password: 'secret', email: 'ada@example.com', name: 'Ada' })
      })
      assert.equal(res.status, 201, await res.text())
      const form = new FormData()
      form.append('avatar', new Blob([Buffer.alloc(1000)]), 'avatar.png')
      assert.equal((await fetch(`${base}/avatars`, { method: 'POST', body: form })).status, 200)
      assert.equal((await fetch(`${base}/books/978-3-16`)).status, 200)
    }
    const snapshot = trace.breakdown()
    const segments = (route) => snapshot.operations.find((o) => o.route === route).segments
    const users = segments('/users/:id')
    assert.deepEqual(users.map((s) => [s.kind, s.name]), [
      ['middleware', 'helmetMiddleware'], ['middleware', 'corsMiddleware'], ['middleware', 'logger'],
      ['middleware', 'compression'], ['middleware', 'cookieParser'], ['middleware', 'session'],
      ['middleware', 'rateLimit'], ['middleware', 'jsonParser'], ['middleware', 'initialize'],
      ['middleware', "authenticate('session')"],
      ['handler', "authenticate('local')"], ['handler', "param('id')"], ['handler', "body('email')"], ['handler', "body('name')"],
      ['handler', 'createUser']
    ])
    for (const segment of users) assert.equal(segment.count, 5, `${segment.name}: one call per request, its own segment`)
    assert.match(users.find((s) => s.name === 'rateLimit').file, /node_modules[\\/]express-rate-limit[\\/]/)
    assert.ok(segments('/avatars').some((s) => s.name === 'multerMiddleware'))
    assert.deepEqual(segments('/books/:isbn').slice(-2).map((s) => [s.kind, s.name]), [['param', 'findBook (:isbn)'], ['handler', 'showBook']])
    for (const operation of snapshot.operations) {
      const sum = operation.segments.reduce((total, s) => total + s.share, operation.unattributedShare)
      assert.ok(Math.abs(sum - 1) < 1e-9, `${operation.route}: ${sum}`)
    }
  } finally {
    await close()
    await trace.shutdown()
  }
})

test('distinct layers with the same name and source line are distinct segments, told apart by position', async () => {
  // One factory, three layers of one route: nothing but their position tells them apart.
  const stamp = (label) => function stampLayer (req, res, next) {
    res.locals[label] = true
    next()
  }
  const app = express()
  const trace = nodebenchTrace({ exporter: 'none' })
  app.use(trace)
  app.use(stamp('app'))
  const api = express.Router()
  api.use(stamp('router'))
  api.get('/things', stamp('first'), stamp('second'), function listThings (req, res) { res.json(Object.keys(res.locals)) })
  app.use('/api', api)
  const { base, close } = await listen(app)
  try {
    for (let i = 0; i < 4; i++) assert.equal((await fetch(`${base}/api/things`)).status, 200)
    const [operation] = trace.breakdown().operations
    assert.deepEqual(operation.segments.map((s) => [s.name, s.count]), [
      ['stampLayer', 4], ['stampLayer #2', 4], ['stampLayer #3', 4], ['stampLayer #4', 4], ['listThings', 4]
    ])
  } finally {
    await close()
    await trace.shutdown()
  }
})

test("a package's factory with a generic name is named by its package: express-mongo-sanitize's middleware()", async () => {
  // express-mongo-sanitize 2 exports `function middleware (options) { return function (req, res, next) ... }`;
  // it assigns req.query, which Express 5 forbids, so its apps are Express 4 apps.
  const express4 = require('express4')
  const mongoSanitize = require('express-mongo-sanitize')
  const app = express4()
  const trace = nodebenchTrace({ exporter: 'none' })
  app.use(trace)
  app.use(express4.json())
  app.use(mongoSanitize())
  app.post('/search', function search (req, res) { res.json(req.body) })
  const { base, close } = await listen(app)
  try {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"$where":"1","name":"ada"}' })
      assert.deepEqual(await res.json(), { name: 'ada' })
    }
    const [operation] = trace.breakdown().operations
    // Express 4's own `query` and `expressInit` first.
    assert.deepEqual(operation.segments.map((s) => s.name).slice(-3), ['jsonParser', 'express-mongo-sanitize', 'search'])
    const sanitize = operation.segments.at(-2)
    assert.match(sanitize.file, /node_modules[\\/]express-mongo-sanitize[\\/]/)
    assert.ok(sanitize.aliases.includes('middleware'), JSON.stringify(sanitize.aliases))
  } finally {
    await close()
    await trace.shutdown()
  }
})
