'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { codes, NodebenchError } = require('@nodebench/errors')

// A git revision of the app, checked out for a paired run (--rev-a, --rev-b): a worktree of the user's
// checkout in a temporary folder (their working tree and branches untouched), its dependencies installed when
// it has a package.json at its root (npm ci with a lock file, else npm install), removed afterwards.

const INSTALL_TIMEOUT_MS = 20 * 60_000

function checkoutError (message) {
  return new NodebenchError(codes.NB_ERR_CHECKOUT, message)
}

function run (command, args, { cwd, timeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { output: `${stdout}\n${stderr}`.trim() }))
      else resolve(stdout)
    })
  })
}

const lastLines = (text) => text.split('\n').filter(Boolean).slice(-5).join('\n  ')

/**
 * Checks out `rev` (`{ rev, commit, root }`) into a temporary worktree and installs its dependencies; resolves
 * to `{ dir, remove() }`.
 */
async function checkoutRevision ({ rev, commit, root }, { onProgress = () => {} } = {}) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-rev-'))
  const dir = path.join(parent, commit.slice(0, 12))
  const remove = async () => {
    await run('git', ['-C', root, 'worktree', 'remove', '--force', dir], { cwd: root }).catch(() => {})
    fs.rmSync(parent, { recursive: true, force: true })
    await run('git', ['-C', root, 'worktree', 'prune'], { cwd: root }).catch(() => {})
  }
  try {
    onProgress(`checking out ${rev} (${commit.slice(0, 12)}) into ${dir}`)
    await run('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit], { cwd: root })
  } catch (err) {
    await remove()
    throw checkoutError(`git worktree add ${rev} failed: ${lastLines(err.output ?? err.message)}`)
  }
  if (fs.existsSync(path.join(dir, 'package.json'))) {
    const args = fs.existsSync(path.join(dir, 'package-lock.json')) ? ['ci'] : ['install']
    onProgress(`installing ${rev}'s dependencies (npm ${args[0]})`)
    try {
      await run('npm', [...args, '--no-audit', '--no-fund'], { cwd: dir, timeoutMs: INSTALL_TIMEOUT_MS })
    } catch (err) {
      await remove()
      throw checkoutError(`npm ${args[0]} in ${rev}'s checkout failed: ${lastLines(err.output ?? err.message)}`)
    }
  }
  return { dir, remove }
}

module.exports = { checkoutRevision }
