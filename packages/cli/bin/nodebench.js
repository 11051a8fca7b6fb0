#!/usr/bin/env node
'use strict'

const { main } = require('../lib/main')

main(process.argv.slice(2)).then((code) => { process.exitCode = code })
