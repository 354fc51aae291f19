import { storeContract } from './contract.js'
import { memoryStore } from './memory.js'

storeContract('memory', async () => ({ store: memoryStore() }))
