'use strict'

const path = require('node:path')

// Which part of the app a stack frame belongs to, for a reader comparing where CPU goes when the app
// serves HTML and when it serves JSON. One table (RULES), read top to bottom, first match wins.
//
// A frame is `{ kind, name, file }`:
// - kind 'js': JavaScript; `file` is its script (a path, or `node:...` for Node.js core; '' for code made by
//   eval or new Function, such as nunjucks' compiled templates);
// - kind 'v8': code V8 generated itself (a builtin such as JsonStringify, a bytecode handler, an inline
//   cache, a compiled regular expression);
// - kind 'native': C++ and shared libraries (the node binary, libc), named when their symbols are known;
// - kind 'unknown': an address in no code the profile knows.
//
// A frame no rule claims has no category of its own: the analysis charges it to its caller (the next frame
// down the stack), the way 0x's flamegraph shows a builtin or C++ frame as part of the JavaScript function
// above it once native frames are hidden. A stack with no claimed frame at all is V8's own native work
// ('V8 / GC') when it holds native code, and 'other' when nothing in it is known.

const CATEGORIES = Object.freeze({
  TEMPLATE: 'template rendering',
  JSON: 'JSON serialisation',
  DATABASE: 'database driver / BSON',
  EXPRESS: 'Express routing',
  NODEBENCH: 'nodebench',
  NODE_IO: 'Node.js HTTP and I/O',
  V8: 'V8 / GC',
  APP: 'app',
  OTHER: 'other'
})

/** The order categories are listed in, in tables and comparisons. */
const CATEGORY_ORDER = Object.freeze(Object.values(CATEGORIES))

// What each category means, for the reports' legends and flamegraphs/README.md.
const CATEGORY_MEANINGS = Object.freeze({
  [CATEGORIES.TEMPLATE]: 'template engines (pug, ejs, handlebars, nunjucks, mustache, eta, liquidjs, marko, ...): compiling and ' +
    'running templates (a compiled template runs as eval\'d code under its engine, or under its own file: views/home.ejs)',
  [CATEGORIES.JSON]: 'JSON.stringify / JSON.parse (V8\'s JSON builtins), Express\'s res.json and body-parser\'s JSON parsing',
  [CATEGORIES.DATABASE]: 'the mongodb driver and bson: building commands, the wire protocol, (de)serialising documents',
  [CATEGORIES.EXPRESS]: 'Express, its router and the middleware packages it is made of (body-parser, send, cookie-parser, ...)',
  [CATEGORIES.NODEBENCH]: 'nodebench\'s own tracing (@nodebench/trace, @nodebench/breakdown, hdr-histogram-js, OpenTelemetry), ' +
    'with the Node.js core, builtins and C++ it calls directly: the overhead nodebench adds to what it measures',
  [CATEGORIES.NODE_IO]: 'Node.js core: HTTP parsing and responses, sockets, streams, timers, events, buffers, fs and module loading',
  [CATEGORIES.V8]: 'garbage collection and compilation (by V8\'s state when sampled; under --prof this includes V8 ' +
    'writing its profile log), and native code no JavaScript called',
  [CATEGORIES.APP]: 'the app\'s own code (examples/mongo-admin, or any file outside node_modules)',
  [CATEGORIES.OTHER]: 'other dependencies, and code the profile cannot name'
})

// Express and the packages Express 5, cookie-parser, method-override and morgan are made of.
const EXPRESS_PACKAGES = [
  'express', 'router', 'path-to-regexp', 'body-parser', 'finalhandler', 'send', 'serve-static', 'cookie-parser',
  'cookie', 'cookie-signature', 'method-override', 'methods', 'morgan', 'basic-auth', 'on-finished', 'on-headers',
  'parseurl', 'type-is', 'media-typer', 'accepts', 'negotiator', 'content-type', 'content-disposition', 'qs',
  'raw-body', 'iconv-lite', 'safer-buffer', 'safe-buffer', 'bytes', 'unpipe', 'destroy', 'ee-first', 'encodeurl',
  'escape-html', 'etag', 'fresh', 'range-parser', 'vary', 'mime', 'mime-types', 'mime-db', 'proxy-addr', 'forwarded',
  'ipaddr.js', 'depd', 'debug', 'ms', 'http-errors', 'statuses', 'setprototypeof', 'toidentifier', 'inherits',
  'merge-descriptors', 'once', 'wrappy', 'is-promise', 'utils-merge', 'array-flatten', 'side-channel',
  'side-channel-list', 'side-channel-map', 'side-channel-weakmap', 'object-inspect', 'get-intrinsic', 'call-bound',
  'call-bind-apply-helpers', 'es-errors', 'es-object-atoms', 'es-define-property', 'function-bind', 'hasown', 'gopd',
  'has-symbols', 'dunder-proto', 'get-proto', 'math-intrinsics'
]

// Template engines, the packages they are made of (pug's lexer, parser, code generator and runtime), and the
// Express view adapters around them.
const TEMPLATE_PACKAGES = [
  'nunjucks', 'pug', 'jade', 'constantinople', 'character-parser', 'with', 'js-stringify', 'doctypes', 'token-stream',
  'ejs', 'handlebars', 'express-handlebars', 'hbs', 'mustache', 'hogan.js', 'eta', 'liquidjs', 'marko', 'twig', 'swig',
  'dot', 'squirrelly', 'art-template', 'consolidate', 'express-react-views', 'react-dom', 'preact-render-to-string',
  'edge.js', 'velocityjs', 'dustjs-linkedin', 'ect', 'haml', 'hamlet', 'whiskers', 'vash'
]
const TEMPLATE_PREFIXES = ['pug-']
// A template compiled with its file named (ejs and eta put it in a sourceURL): its code runs "in" the template.
const TEMPLATE_FILE = /\.(?:pug|jade|ejs|eta|hbs|handlebars|mustache|njk|nunjucks|liquid|twig|marko|vash|dust)$/i

function isTemplateEngine (frame) {
  const name = packageOf(frame.file)
  if (name === null) return TEMPLATE_FILE.test(frame.file)
  return TEMPLATE_PACKAGES.includes(name) || TEMPLATE_PREFIXES.some((prefix) => name.startsWith(prefix))
}

const DATABASE_PACKAGES = [
  'mongodb', 'bson', 'mongodb-connection-string-url', '@mongodb-js/saslprep', 'whatwg-url', 'tr46', 'webidl-conversions',
  'sparse-bitfield', 'memory-pager'
]

// @nodebench/* and what its tracing runs on: histograms and OpenTelemetry's SDK and exporters.
const NODEBENCH_PACKAGES = [
  'hdr-histogram-js', '@assemblyscript/loader', 'protobufjs', 'long', 'require-in-the-middle', 'import-in-the-middle',
  'module-details-from-path'
]
const NODEBENCH_SCOPES = ['@nodebench', '@opentelemetry', '@grpc', '@protobufjs']

// In this repository @nodebench/* are workspaces: Node.js loads them by their real paths, not through
// node_modules. Resolved once, from here, so an app elsewhere only has node_modules/@nodebench/ to match.
function packageDir (name) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`)) + path.sep
  } catch {
    return null
  }
}
const NODEBENCH_DIRS = ['@nodebench/trace', '@nodebench/breakdown', '@nodebench/services'].map(packageDir).filter(Boolean)

/** The npm package a script belongs to (the folder after its last node_modules), or null. */
function packageOf (file) {
  const match = /^.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)
  return match ? match[1].replace('\\', '/') : null
}

function inPackages (names, scopes = []) {
  const set = new Set(names)
  return (frame) => {
    const name = packageOf(frame.file)
    return name !== null && (set.has(name) || scopes.some((scope) => name.startsWith(`${scope}/`)))
  }
}

const isNodebenchPackage = inPackages(NODEBENCH_PACKAGES, NODEBENCH_SCOPES)
const isNodeCore = (frame) => frame.file.startsWith('node:') || /^internal[\\/]/.test(frame.file)
const isUserland = (frame) => frame.file !== '' && !isNodeCore(frame) && packageOf(frame.file) === null

// V8's C++ for JSON (JsonStringifier, JsonParser, the JSON builtins' runtime) and its builtins' names.
const JSON_NATIVE = /Json(?:Stringif|Pars)|Builtins?_Json|JSON(?:Parse|Stringify)/
// Collectors, marking and sweeping: garbage collection even when V8 was not in its GC state.
const GC_CLASSES = ['Scavenger', 'MarkCompactCollector', 'MinorMarkCompactCollector', 'MinorMarkSweepCollector', 'MarkingVisitor',
  'ConcurrentMarking', 'IncrementalMarking', 'Sweeper', 'Heap::CollectGarbage', 'Heap::PerformGarbageCollection', 'Heap::Scavenge',
  'Heap::MarkCompact']
const GC_NATIVE = new RegExp(`v8::internal::(?:${GC_CLASSES.join('|')})|\\bcppgc::`)

// Express's res.json / res.jsonp and the stringify they call (the JSON.stringify inside shows as the
// builtin or V8's C++ above it when its symbols are known); body-parser's JSON body parser.
function isExpressJson (frame) {
  const name = packageOf(frame.file)
  return (name === 'express' && /[\\/]lib[\\/]response\.js$/.test(frame.file) && /^(?:json|jsonp|stringify)$/.test(frame.name)) ||
    (name === 'body-parser' && /[\\/]types[\\/]json\.js$/.test(frame.file))
}

const isNodebench = (frame) => NODEBENCH_DIRS.some((dir) => frame.file.startsWith(dir)) || isNodebenchPackage(frame)

/**
 * The rules. `kinds`: the frame kinds a rule looks at; `test(frame)`: whether it claims the frame.
 * Order matters: Express's res.json before Express, nodebench before app.
 */
const RULES = Object.freeze([
  {
    category: CATEGORIES.TEMPLATE,
    kinds: ['js'],
    about: 'node_modules/pug (and pug-*), ejs, handlebars, nunjucks and the other template engines; a compiled template named by its file',
    test: isTemplateEngine
  },
  {
    category: CATEGORIES.JSON,
    kinds: ['js'],
    about: 'Express\'s res.json, res.jsonp and stringify; body-parser\'s json parser',
    test: isExpressJson
  },
  {
    category: CATEGORIES.JSON,
    kinds: ['v8', 'native'],
    about: 'the JsonStringify and JsonParse builtins, V8\'s JsonStringifier and JsonParser',
    test: (frame) => JSON_NATIVE.test(frame.name)
  },
  { category: CATEGORIES.DATABASE, kinds: ['js'], about: 'node_modules/mongodb, bson and their dependencies', test: inPackages(DATABASE_PACKAGES) },
  { category: CATEGORIES.EXPRESS, kinds: ['js'], about: 'node_modules/express, router, body-parser, send, ...', test: inPackages(EXPRESS_PACKAGES) },
  {
    category: CATEGORIES.NODEBENCH,
    kinds: ['js'],
    about: '@nodebench/* (middleware/lib, packages/breakdown), hdr-histogram-js, @opentelemetry/*',
    test: isNodebench
  },
  { category: CATEGORIES.NODE_IO, kinds: ['js'], about: 'Node.js core JavaScript: node:http, node:net, streams, timers, ...', test: isNodeCore },
  { category: CATEGORIES.APP, kinds: ['js'], about: 'a script outside node_modules (examples/mongo-admin)', test: isUserland },
  { category: CATEGORIES.V8, kinds: ['native'], about: 'V8\'s garbage collector in C++', test: (frame) => GC_NATIVE.test(frame.name) },
  { category: CATEGORIES.OTHER, kinds: ['js'], about: 'any other package', test: (frame) => frame.file !== '' }
])

/** The category a frame claims, or null when it is charged to its caller. */
function frameCategory (frame) {
  for (const rule of RULES) {
    if (rule.kinds.includes(frame.kind) && rule.test(frame)) return rule.category
  }
  return null
}

module.exports = { CATEGORIES, CATEGORY_ORDER, CATEGORY_MEANINGS, RULES, frameCategory, packageOf }
