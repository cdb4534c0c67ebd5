import { describe, expect, it } from 'vitest'
import { HostOrder } from '../../../src/drivers/postgres-js/host-order.ts'

describe('HostOrder', () => {
  it('tells which hosts were refused; with every host refused, tries them in turn (finds the one promoted)', () => {
    const order = new HostOrder(2)
    expect([order.refused(0), order.refused(1)]).toEqual([false, false])
    order.judged(0, false) // a standby
    expect([order.refused(0), order.refused(1), order.order()]).toEqual([true, false, [1, 0]])
    order.judged(1, false) // a standby too: a failover before the promotion
    expect(order.order()).toEqual([0, 1])
    order.judged(0, false)
    expect(order.order(), 'after the host refused last').toEqual([1, 0])
    order.judged(1, true) // promoted
    expect([order.refused(1), order.order()]).toEqual([false, [1, 0]])
  })

  it('tries the hosts in the order of the URL, every time', () => {
    const order = new HostOrder(3)
    expect(order.order()).toEqual([0, 1, 2])
    order.judged(0, true)
    expect(order.order()).toEqual([0, 1, 2])
  })

  it('tries a host refused for target_session_attrs last, until one of its connections is accepted', () => {
    const order = new HostOrder(3)
    order.judged(0, false) // the standby listed first
    expect(order.order()).toEqual([1, 2, 0])
    order.judged(2, false)
    expect(order.order()).toEqual([1, 0, 2])
    order.judged(0, true) // promoted
    expect(order.order()).toEqual([0, 1, 2])
  })

  it('starts after a host whose connection it could not judge (the driver judges it and may open it again)', () => {
    const order = new HostOrder(2)
    order.judged(0, undefined)
    expect(order.order()).toEqual([1, 0])
    order.judged(1, undefined)
    expect(order.order()).toEqual([0, 1])
  })

  it('starts after a host that did not answer, a refused one still last', () => {
    const order = new HostOrder(3)
    order.unanswered(0)
    expect(order.order()).toEqual([1, 2, 0])
    order.judged(2, false)
    order.unanswered(1)
    expect(order.order()).toEqual([0, 1, 2])
  })
})
