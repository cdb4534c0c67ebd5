export type { ProvidedServices } from './provided.ts'
export type { ConnectOptions, TestDatabase } from './use-test-database.ts'
export { useTestDatabase } from './use-test-database.ts'
