'use strict'

// An Observable tapped (tapped()) so that a unit learns when its first value comes or when it ends, without
// changing what the app's subscriber sees.

const { reportInternalError } = require('../internal-errors')

// What a tapped Observable's signal does to its target (tapped()), and whether its first value gives it (else
// only its end: complete or error).
const OPEN_AFTER = 0 // an interceptor's code after the handler begins (InterceptorRun), at the first value
const CLOSE_AFTER = 1 // the outermost interceptor's code after the handler ends (InterceptorRun), at the first value
const END_UNIT = 2 // a guard's or pipe's unit ends (UnitEnd), at the end

// A target answers its signal in a method under this symbol (UnitEnd, units.js; InterceptorRun,
// interceptors.js): a method the app, which is given an InterceptorRun as its CallHandler, does not see by name.
const kSignal = Symbol('nodebench.nestSignal')

function signal (target, what, err) {
  target[kSignal](what, err)
}

/**
 * `source` with signal(target, what, err) called once per subscription: at its first value or its end (the
 * end only, for END_UNIT). An Observable of the same rxjs copy as `source`, made by its own `lift` (as rxjs's
 * operators make theirs): an operator and an observer object a subscription, no closures. Anything that is not an
 * Observable is returned as it is.
 */
function tapped (source, target, what) {
  if (!isObservable(source)) return source
  try {
    return source.lift(new TapOperator(target, what))
  } catch (err) {
    reportInternalError('time a Nest Observable', err)
    return source
  }
}

class TapOperator {
  constructor (target, what) {
    this.target = target
    this.what = what
  }

  call (subscriber, source) {
    const observer = new TapObserver(subscriber, this.target, this.what)
    const subscription = source.subscribe(observer)
    // rxjs 7 took the observer as a subscriber of its own (below): what it holds is `subscriber`'s already.
    return subscription === observer ? undefined : subscription
  }
}

/**
 * Passes every signal on to `subscriber`, the one that subscribed to the tapped Observable, and shares its
 * subscription: `closed`, `add`, `remove` and `unsubscribe` are that subscriber's. rxjs 7 then takes it as a
 * subscriber (its isSubscriber() test) and subscribes `source` with it as it is, as if `subscriber` had
 * subscribed to `source` directly, rather than wrapping it in a SafeSubscriber of its own (an object more a
 * signal, and errors thrown downstream reported later instead of passed up as without nodebench). Other rxjs
 * versions wrap it, as any observer.
 */
class TapObserver {
  constructor (subscriber, target, what) {
    this.subscriber = subscriber
    this.target = target
    this.what = what
    this.signalled = false
  }

  get closed () {
    return this.subscriber.closed
  }

  add (teardown) {
    this.subscriber.add(teardown)
  }

  remove (teardown) {
    this.subscriber.remove(teardown)
  }

  unsubscribe () {
    this.subscriber.unsubscribe()
  }

  next (value) {
    if (this.what !== END_UNIT) this.once(null)
    this.subscriber.next(value)
  }

  error (err) {
    this.once(err)
    this.subscriber.error(err)
  }

  complete () {
    this.once(null)
    this.subscriber.complete()
  }

  once (err) {
    if (this.signalled) return
    this.signalled = true
    try {
      signal(this.target, this.what, err)
    } catch (error) {
      reportInternalError('time a Nest unit', error)
    }
  }
}

/** As rxjs's isObservable: any copy's Observable. */
function isObservable (value) {
  return value !== null && typeof value === 'object' && typeof value.lift === 'function' && typeof value.subscribe === 'function'
}

module.exports = { tapped, isObservable, kSignal, OPEN_AFTER, CLOSE_AFTER, END_UNIT }
