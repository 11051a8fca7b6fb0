'use strict'

// `npm run pack`: the published packages as the registry would ship them, one tarball each (`npm pack`: each
// package's `files`, README, LICENSE and CHANGELOG), written to dist/packages (git-ignored), for
// `npm install <tarball>...` in an app before anything is published. test/packages.test.js installs what this
// writes into an app outside the checkout and runs it there.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const ROOT = path.join(__dirname, '..')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// In dependency order: a package's dependencies come before it (the order `npm install` is shown them in).
const PUBLISHED = Object.freeze(['packages/errors', 'packages/breakdown', 'middleware', 'packages/services', 'collector', 'packages/cli'])

// What an app loads at run time: @nodebench/trace and the packages of ours it requires.
const RUN_TIME = Object.freeze(['packages/errors', 'packages/breakdown', 'middleware'])

/**
 * Packs every published package (or those of `dirs`) into `destination` (created); returns
 * `[{ name, version, file, files }]`.
 */
function packPublished (destination = path.join(ROOT, 'dist', 'packages'), dirs = PUBLISHED) {
  fs.mkdirSync(destination, { recursive: true })
  const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--pack-destination', destination,
    ...dirs.flatMap((dir) => ['--workspace', dir])], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }))
  return packed.map((entry) => ({
    name: entry.name,
    version: entry.version,
    file: path.join(destination, entry.filename),
    files: entry.files.map((file) => file.path)
  }))
}

if (require.main === module) {
  const destination = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist', 'packages'))
  const tarballs = packPublished(destination)
  for (const { name, version, file } of tarballs) process.stderr.write(`${name}@${version}: ${path.relative(process.cwd(), file) || file}\n`)
  const shown = (file) => {
    const relative = path.relative(process.cwd(), file)
    return relative.startsWith('..') ? file : relative
  }
  process.stderr.write(`\nIn your app's folder:\n  npm install ${tarballs.map(({ file }) => path.resolve(file)).join(' ')}\n`)
  process.stdout.write(tarballs.map(({ file }) => shown(file)).join('\n') + '\n')
}

module.exports = { packPublished, PUBLISHED, RUN_TIME }
