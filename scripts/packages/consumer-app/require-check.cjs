// CommonJS callers: require() of the ESM-only packages works on the Node versions their engines allow.
const core = require('@pipeflush/core')
const kysely = require('@pipeflush/kysely')
const drizzle = require('@pipeflush/drizzle')

if (typeof core.EntityManager?.connect !== 'function') throw new Error('require: no EntityManager.connect')
if (typeof kysely.createEntityManagerFactory !== 'function') throw new Error('require: no factory')
if (typeof drizzle.createEntityManagerFactory !== 'function') throw new Error('require: no drizzle factory')
console.log('require ok')
