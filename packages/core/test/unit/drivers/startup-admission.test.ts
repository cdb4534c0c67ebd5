import { Duplex } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Meters } from '../../../src/drivers/socket/meters.ts'

/** A server message: type byte, length, body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5)
  head.write(type, 0)
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const parameter = (name: string, value: string) => message('S', Buffer.from(`${name}\0${value}\0`))
const READY = message('Z', Buffer.from('I'))
const STARTUP = Buffer.from([0, 0, 0, 8, 0, 3, 0, 0])

/** A socket whose writes go nowhere; the server's data is emitted by the test. */
const socketToNowhere = () =>
  new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done()
    },
  })

describe('a meter with an admission', () => {
  it('reads the parameters of the startup, split across chunks, and judges the connection at its first ReadyForQuery', () => {
    const socket = socketToNowhere()
    const judged: Record<string, string>[] = []
    const m = new Meters().add(socket, 'h:5432', true, 0, (parameters) => {
      judged.push(Object.fromEntries(parameters))
      return undefined
    })
    socket.write(STARTUP)
    const answer = Buffer.concat([
      parameter('in_hot_standby', 'off'),
      parameter('server_version', '18.0'),
      READY,
    ])
    socket.emit('data', answer.subarray(0, 7))
    socket.emit('data', answer.subarray(7))
    expect(judged).toEqual([{ in_hot_standby: 'off', server_version: '18.0' }])
    expect(m.meter.ready).toBe(true)
    expect(m.meter.parameters.get('server_version')).toBe('18.0')
    // Later ParameterStatus messages (a SET) are not read: the startup is over.
    socket.emit('data', parameter('in_hot_standby', 'on'))
    expect(m.meter.parameters.get('in_hot_standby')).toBe('off')
  })

  it('a refusal destroys the socket with its error before the next data listener sees the ready answer: a failed attempt', () => {
    const socket = socketToNowhere()
    socket.on('error', () => {})
    const meters = new Meters()
    const m = meters.add(socket, 'h:5432', true, 0, (parameters) =>
      parameters.get('in_hot_standby') === 'on' ? new Error('a standby') : undefined,
    )
    const seen: boolean[] = []
    socket.on('data', () => seen.push(socket.destroyed))
    socket.write(STARTUP)
    socket.emit('data', Buffer.concat([parameter('in_hot_standby', 'on'), READY]))
    expect(seen, 'destroyed before the driver handles the chunk').toEqual([true])
    expect(m.meter.ready).toBe(false)
    expect(m.meter.closed).toBe(true)
    expect(m.meter.closeError?.message).toBe('a standby')
    expect(meters.failures).toBe(1)
    expect(meters.opened).toBe(0)
    expect(meters.lastFailure?.reason).toBe('a standby')
  })
})
