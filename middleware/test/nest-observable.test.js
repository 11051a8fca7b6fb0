'use strict'

// A Nest unit that returns an Observable (a guard, a pipe) ends when the Observable ends: nest/units.js
// hands Nest the same Observable tapped (settled()). With the rxjs Nest itself uses (the example's, 7.x), a
// tapped Observable must do for its subscriber exactly what the Observable does untapped: the same values,
// errors and completion in the same order, the same teardown when the subscriber leaves early, and an error
// thrown by the subscriber itself going where it goes without nodebench. And the unit ends once, at the end.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { settled } = require('../lib/nest')
const { RequestRecord } = require('../lib/request-record')

const rxjs = require(require.resolve('rxjs', { paths: [path.join(__dirname, '..', '..', 'examples', 'nest-cats')] }))
const { Observable, Subscriber, of, throwError, defer, take, map, mergeAll, lastValueFrom } = rxjs

/** A record with one open unit; `tap(observable)` is the Observable Nest is given for it. */
function unit () {
  const record = new RequestRecord('GET', 0)
  const index = record.openUnit({ kind: 'guard', name: 'AuthGuard' })
  return { record, index, tap: (observable) => settled(record, index, observable, false) }
}

/** An Observable that logs its own subscription, values and teardown, emitting `values` on timers. */
function logged (log, values, { fail = null } = {}) {
  return new Observable((subscriber) => {
    log.push('subscribed')
    let i = 0
    const timer = setInterval(() => {
      if (i < values.length) {
        log.push(`emit ${values[i]}`)
        subscriber.next(values[i++])
      } else if (fail !== null) {
        subscriber.error(fail)
      } else {
        subscriber.complete()
      }
    }, 1)
    return () => {
      clearInterval(timer)
      log.push('teardown')
    }
  })
}

/** Subscribes and records every signal until the end (or `leaveAfter` values), then gives the log. */
function run (observable, log, { leaveAfter = Infinity } = {}) {
  return new Promise((resolve) => {
    let seen = 0
    const subscription = observable.subscribe({
      next: (value) => {
        log.push(`next ${value}`)
        if (++seen >= leaveAfter) {
          subscription.unsubscribe()
          log.push('left')
          setTimeout(() => resolve(log), 10)
        }
      },
      error: (err) => { log.push(`error ${err.message}`); resolve(log) },
      complete: () => { log.push('complete'); resolve(log) }
    })
  })
}

test('a tapped Observable gives its subscriber the same signals, in the same order, and ends its unit at the end', async () => {
  const cases = [
    ['three values', true, (log) => logged(log, [1, 2, 3])],
    ['an error after a value', true, (log) => logged(log, [1], { fail: new Error('boom') })],
    ['synchronous values', false, (log) => of(4, 5).pipe(map((v) => { log.push(`map ${v}`); return v * 2 }))],
    ['a synchronous error', false, () => throwError(() => new Error('sync'))],
    ['a promise, deferred', true, (log) => defer(() => { log.push('deferred'); return Promise.resolve(7) })],
    ['Observables merged', true, (log) => of(logged(log, [1]), of(2)).pipe(mergeAll())]
  ]
  for (const [name, async, make] of cases) {
    const bare = []
    const expected = await run(make(bare), bare)
    const { record, index, tap } = unit()
    const log = []
    const tapped = tap(make(log))
    assert.notEqual(tapped, undefined)
    const pending = run(tapped, log)
    if (async) assert.equal(record.entryEnd(index), -1, `${name}: open while the Observable runs`)
    assert.deepEqual(await pending, expected, name)
    assert.ok(record.entryEnd(index) >= record.entryStart(index), `${name}: the unit ended`)
    assert.equal(record.entryError(index) !== null, expected.some((line) => line.startsWith('error')), `${name}: its error noted`)
  }
})

test('a subscriber that leaves early tears the source down as without nodebench, and the unit is left to the next one', async () => {
  const bare = []
  const expected = await run(logged(bare, [1, 2, 3]), bare, { leaveAfter: 1 })
  assert.deepEqual(expected, ['subscribed', 'emit 1', 'next 1', 'teardown', 'left'])
  const { record, index, tap } = unit()
  const log = []
  assert.deepEqual(await run(tap(logged(log, [1, 2, 3])), log, { leaveAfter: 1 }), expected)
  assert.equal(record.entryEnd(index), -1, 'no end signalled: the next unit or the response ends it')

  // take(1) downstream: the operator unsubscribes from the tapped source after its value.
  const bareTake = []
  const expectedTake = await run(logged(bareTake, [1, 2]).pipe(take(1)), bareTake)
  assert.deepEqual(expectedTake.slice(0, 3), ['subscribed', 'emit 1', 'next 1'])
  const { record: second, index: secondIndex, tap: secondTap } = unit()
  const takeLog = []
  assert.deepEqual(await run(secondTap(logged(takeLog, [1, 2])).pipe(take(1)), takeLog), expectedTake)
  assert.equal(second.entryEnd(secondIndex), -1, 'take(1) left before the source ended')
})

test('an error thrown by the subscriber itself goes where it goes without nodebench', async () => {
  /** A Subscriber (not a plain observer: rxjs does not guard it) whose next throws; what reaches it after. */
  function throwingSubscriber (log) {
    return new Subscriber({
      next: (value) => { log.push(`next ${value}`); throw new Error('subscriber failed') },
      error: (err) => log.push(`error ${err.message}`),
      complete: () => log.push('complete')
    })
  }
  const bare = []
  of(1, 2).subscribe(throwingSubscriber(bare))
  const { tap } = unit()
  const log = []
  tap(of(1, 2)).subscribe(throwingSubscriber(log))
  await new Promise((resolve) => setTimeout(resolve, 10)) // an error rxjs reports later would be thrown by now
  assert.deepEqual(log, bare)
})

test('lastValueFrom, as Nest reads a guard, gets the same value through the tap', async () => {
  const { record, index, tap } = unit()
  assert.equal(await lastValueFrom(tap(of(true, false))), false)
  assert.ok(record.entryEnd(index) >= record.entryStart(index))
})
