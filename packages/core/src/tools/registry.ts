import type { ValidateFunction } from 'ajv'
import { BosunError, ErrorCodes } from '../errors.js'
import type { ToolSpec } from '../model.js'
import { toFrozenJson } from '../json.js'
import { ajv, problemLine, schemaProblems } from '../schema.js'
import type { Tool } from './types.js'

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export interface RegisteredTool {
  tool: Tool
  /** Compiled once, when the agent is created. */
  validate: ValidateFunction
}

/** The agent's tools, checked and compiled once. */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>()
  /** What the model is told, in registration order. */
  specs: readonly ToolSpec[] = Object.freeze([])
  /** Set when the first turn starts: the tool set of a running agent changes only through prepareCall. */
  #sealed = false

  constructor(tools: readonly Tool[] = []) {
    if (!Array.isArray(tools)) throw new BosunError(ErrorCodes.INVALID_TOOL, '"tools" must be an array of tool objects.')
    tools.forEach((tool, index) => this.#register(tool, `tools[${index}]`))
  }

  /**
   * Adds a tool (a plugin's `addTool` during setup). Checked like the agent's own tools; refused
   * once the agent has started a turn, so every request of a session is made from one tool set
   * unless a `prepareCall` tap changes it (and `request/context` logs that).
   */
  add(tool: Tool, where: string): void {
    if (this.#sealed) throw invalid(`${where}: tools can be added only during plugin setup, before the first turn`)
    this.#register(tool, where)
  }

  /** Called when the first turn opens. */
  seal(): void {
    this.#sealed = true
  }

  #register(tool: Tool, at: string): void {
    const where = `${at}${typeof tool?.name === 'string' ? ` ("${tool.name}")` : ''}`
    if (typeof tool !== 'object' || tool === null) throw invalid(`${where} must be an object`)
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      throw invalid(`${where}: "name" must be 1-64 letters, digits, "_" or "-"`)
    }
    if (this.#tools.has(tool.name)) throw invalid(`${where}: a tool named "${tool.name}" is already registered`)
    if (typeof tool.description !== 'string') throw invalid(`${where}: "description" must be a string`)
    if (typeof tool.execute !== 'function') throw invalid(`${where}: "execute" must be a function`)
    if (typeof tool.parameters !== 'object' || tool.parameters === null) throw invalid(`${where}: "parameters" must be a JSON Schema object`)
    let validate: ValidateFunction
    try {
      validate = ajv().compile(tool.parameters)
    } catch (error) {
      throw new BosunError(ErrorCodes.INVALID_TOOL, `${where}: "parameters" is not a valid JSON Schema: ${(error as Error).message}.`, {
        cause: error,
      })
    }
    // A frozen copy: the specs go into every request, which no plugin or adapter may change.
    const parameters = toFrozenJson(tool.parameters, `${where} "parameters"`)
    this.#tools.set(tool.name, { tool, validate })
    this.specs = Object.freeze([...this.specs, Object.freeze({ name: tool.name, description: tool.description, parameters })])
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name)
  }

  get names(): string[] {
    return [...this.#tools.keys()]
  }

  /** Parses and validates raw JSON arguments; returns the arguments or a message for the model. */
  parseArguments(entry: RegisteredTool, raw: string): { ok: true; args: unknown } | { ok: false; message: string } {
    let args: unknown
    try {
      args = raw.trim() === '' ? {} : JSON.parse(raw)
    } catch (error) {
      return { ok: false, message: `The arguments of "${entry.tool.name}" are not valid JSON (${(error as Error).message}). Call the tool again with a JSON object.` }
    }
    if (entry.validate(args)) return { ok: true, args }
    const problems = schemaProblems(entry.validate.errors ?? [], entry.tool.parameters, args)
      .map((problem) => problemLine(problem).replace(/\.$/, ''))
      .join('; ')
    return { ok: false, message: `Invalid arguments for "${entry.tool.name}": ${problems}. Call the tool again with arguments that match its schema.` }
  }
}

function invalid(message: string): BosunError {
  return new BosunError(ErrorCodes.INVALID_TOOL, `${message}.`)
}
