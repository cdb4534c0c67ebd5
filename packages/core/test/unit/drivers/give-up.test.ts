import { describe, expect, it } from 'vitest'
import { GiveUp } from '../../../src/drivers/adapter.ts'

describe('GiveUp', () => {
  it('tells its listener once, however often the caller gives up', () => {
    const giveUp = new GiveUp()
    let told = 0
    giveUp.listen(() => told++)
    expect(told).toBe(0)
    giveUp.give()
    giveUp.give()
    expect(told).toBe(1)
  })

  it('tells a listener set after the caller gave up at once', () => {
    const giveUp = new GiveUp()
    giveUp.give()
    let told = 0
    giveUp.listen(() => told++)
    expect(told).toBe(1)
  })

  it('tells only the last listener set', () => {
    const giveUp = new GiveUp()
    const told: string[] = []
    giveUp.listen(() => told.push('first'))
    giveUp.listen(() => told.push('second'))
    giveUp.give()
    expect(told).toEqual(['second'])
  })
})
