/**
 * The order in which pipeflush's socket factory tries the hosts of a multi-host URL for a new
 * connection, and what it learnt of each host: as postgres.js and libpq do, from the first host of the
 * URL on (a host that refuses the connection, or whose connection closes before its startup is over,
 * is skipped for the next); hosts whose
 * last connection was refused for the client's `target_session_attrs` (a standby, for `read-write`)
 * go last, until one of their connections is accepted again (after a failover the old standby is
 * the primary: it is tried as soon as the others fail, and accepted). While every host is refused,
 * each attempt starts after the host refused last: the hosts are tried in turn.
 *
 * Where a host's connection could not be judged at its startup (a server before PostgreSQL 14 reports
 * no `in_hot_standby`; `target_session_attrs` other than `read-write` and `primary` are left to
 * postgres.js), postgres.js judges it itself and opens the connection again when it refuses it: the
 * next attempt then starts after that host, so that each attempt goes on to the next host.
 */
export class HostOrder {
  readonly #count: number
  /** Hosts whose last judged connection was refused. */
  readonly #refused = new Set<number>()
  /** Where the next attempt starts, once a connection could not be judged. */
  #from = 0

  constructor(count: number) {
    this.#count = Math.max(1, count)
  }

  /** The hosts' indexes, in the order to try them. */
  order(): number[] {
    const all = Array.from({ length: this.#count }, (_, i) => (this.#from + i) % this.#count)
    return [...all.filter((i) => !this.#refused.has(i)), ...all.filter((i) => this.#refused.has(i))]
  }

  /**
   * A connection to host `index` closed before its startup was over, not refused by a judgement (a
   * silent host: a hung server, a network that drops its packets; one that closes connections during
   * their startup: a crashing server, a proxy whose backend is gone, a reset during TLS or SCRAM): the
   * next attempt starts after it, as postgres.js and libpq go on to the next host when an attempt fails.
   */
  unanswered(index: number): void {
    this.#from = (index + 1) % this.#count
  }

  /** Whether host `index`'s last judged connection was refused (it is tried after the others). */
  refused(index: number): boolean {
    return this.#refused.has(index)
  }

  /**
   * A connection to host `index` finished its startup: `accepted` for the client, refused, or
   * `undefined` when it could not be judged (postgres.js judges it).
   */
  judged(index: number, accepted: boolean | undefined): void {
    if (accepted === true) this.#refused.delete(index)
    else if (accepted === false) {
      this.#refused.add(index)
      // Every host refused (a failover before the promotion, or refusals of hosts since promoted):
      // each attempt goes on to the next host, and finds the one promoted.
      if (this.#refused.size === this.#count) this.#from = (index + 1) % this.#count
    } else this.#from = (index + 1) % this.#count
  }
}
