'use strict'

const fs = require('node:fs')
const path = require('node:path')

// The app `bench`, `flame` and `browser` start when given none: the study's example, examples/mongo-admin, found
// beside this package in a nodebench checkout (packages/cli next to examples/). An installed nodebench has no
// example: there the user names the app (app-target.js), and its workload with it.

const CHECKOUT_EXAMPLE = path.resolve(__dirname, '..', '..', '..', '..', 'examples', 'mongo-admin')

/** The example app's folder when this is a nodebench checkout, else null. */
function defaultApp () {
  return fs.existsSync(path.join(CHECKOUT_EXAMPLE, 'server.js')) ? CHECKOUT_EXAMPLE : null
}

module.exports = { defaultApp }
