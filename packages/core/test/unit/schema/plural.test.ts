import { describe, expect, it } from 'vitest'
import { plural } from '../../../src/schema/plural.ts'

describe('plural', () => {
  it('pluralizes by the regular English rules', () => {
    expect(['book', 'category', 'address', 'box', 'batch', 'day'].map(plural)).toEqual([
      'books',
      'categories',
      'addresses',
      'boxes',
      'batches',
      'days',
    ])
  })

  it('pluralizes irregular nouns as the last word, keeping their case', () => {
    expect(['child', 'order_person', 'Child', 'MAN', 'woman', 'grandchild'].map(plural)).toEqual([
      'children',
      'order_people',
      'Children',
      'MEN',
      'women',
      'grandchildren',
    ])
  })

  it('leaves a plural, or a word without a plural, as it is', () => {
    const same = ['people', 'news', 'series', 'users', 'categories', 'children', 'status_history_data']
    expect(same.map(plural)).toEqual(same)
    expect(['board_news', 'user_information', 'species'].map(plural)).toEqual([
      'board_news',
      'user_information',
      'species',
    ])
  })

  it('pluralizes the last word of a snake_case, camelCase or UPPER_CASE name', () => {
    expect(['thread_stat', 'threadStat', 'THREAD_STAT', 'status', 'reply', 'table2'].map(plural)).toEqual([
      'thread_stats',
      'threadStats',
      'THREAD_STATS',
      'statuses',
      'replies',
      'table2s',
    ])
  })
})
