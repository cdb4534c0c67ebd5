import { Duplex } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { meterSocket } from '../../../src/drivers/socket/socket-meter.ts'

/** A protocol message: type byte, length, body. */
function message(type: string, body = ''): Buffer {
  const bytes = Buffer.from(body)
  const head = Buffer.alloc(5)
  head.write(type, 0)
  head.writeUInt32BE(bytes.length + 4, 1)
  return Buffer.concat([head, bytes])
}
const READY = message('Z', 'I')
const complete = (tag: string) => message('C', `${tag}\0`)
const query = (text: string) => message('Q', `${text}\0`)

/** A socket whose writes go nowhere; the server's data is emitted by the test, in `chunks` of it. */
function meteredSocket() {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done()
    },
  })
  const meter = meterSocket(socket, undefined, true)
  // The startup is over: what follows are queries and their answers.
  socket.write(Buffer.from([0, 0, 0, 8, 0, 3, 0, 0]))
  socket.emit('data', READY)
  const answer = (data: Buffer, size = data.length) => {
    for (let at = 0; at < data.length; at += size) socket.emit('data', data.subarray(at, at + size))
  }
  return { socket, meter, answer }
}

describe('the statements completed answering the last simple-protocol query', () => {
  const failedThird = Buffer.concat([
    complete('INSERT 0 1'),
    message('T', 'x'.repeat(30)),
    message('D', 'y'.repeat(300)),
    complete('SELECT 1'),
    message('E', 'SERROR\0C P0001\0Mraised\0\0'),
    READY,
  ])

  for (const size of [1, 2, 3, 5, 7, 64, failedThird.length])
    it(`counts each CommandComplete up to the ReadyForQuery, the answer in chunks of ${size} bytes`, () => {
      const { socket, meter, answer } = meteredSocket()
      expect(meter.completedInQuery).toBeUndefined()
      socket.write(query('insert ...; select ...; insert ...'))
      expect(meter.completedInQuery).toBe(0)
      answer(failedThird, size)
      expect(meter.completedInQuery).toBe(2)
      // Messages after the answer (a notice, another answer) are not counted: its count stays.
      answer(Buffer.concat([complete('SELECT 1'), READY]))
      expect(meter.completedInQuery).toBe(2)
    })

  it('starts again at each Query written; COPY data written meanwhile belongs to the answer', () => {
    const { socket, meter, answer } = meteredSocket()
    socket.write(query('insert ...'))
    answer(Buffer.concat([complete('INSERT 0 1'), READY]))
    expect(meter.completedInQuery).toBe(1)
    socket.write(query('copy ...; insert ...'))
    answer(message('G', '\0\0\0'))
    socket.write(message('d', 'a row\n'))
    socket.write(message('c'))
    answer(Buffer.concat([complete('COPY 1'), message('E', 'SERROR\0\0'), READY]))
    expect(meter.completedInQuery).toBe(1)
  })

  it('is not counted by a meter made without counting', () => {
    const socket = new Duplex({ read() {}, write: (_chunk, _encoding, done) => done() })
    const meter = meterSocket(socket)
    socket.write(query('insert ...'))
    socket.emit('data', Buffer.concat([complete('INSERT 0 1'), READY]))
    expect(meter.completedInQuery).toBeUndefined()
  })

  it('is unknown after another message is written (an extended-protocol query), or an answer that is no message stream', () => {
    const { socket, meter, answer } = meteredSocket()
    socket.write(query('insert ...'))
    answer(complete('INSERT 0 1'))
    socket.write(message('P', 'select 1\0\0\0'))
    expect(meter.completedInQuery).toBeUndefined()
    socket.write(query('insert ...'))
    answer(Buffer.from([0x01, 0, 0, 0, 9]))
    expect(meter.completedInQuery).toBeUndefined()
  })
})
