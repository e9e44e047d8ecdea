import pg from 'pg';
import { type RowMaker, rowMaker } from './row-maker.js';

/** What one statement answers: its rows, and how many it read or wrote (null for a command that counts none). */
export interface StatementResult<T> {
  rows: T[];
  rowCount: number | null;
}

/** Gives a column's text the value it is read as (the driver's type parsers). */
export type TypeParsers = { getTypeParser(oid: number, format?: string): (text: string) => unknown };

/** A result's columns and what reads each, made once per prepared statement rather than from each answer. */
export interface RowShape {
  names: readonly string[];
  types: readonly number[];
  parsers: readonly ((text: string) => unknown)[];
  /** What makes a row's object: compiled for a named statement's shape, which is kept; none for an unnamed one. */
  make: RowMaker | undefined;
}

/** The parts of pg's wire messages a statement reads. */
interface ColumnDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

/** What a statement reads of pg's connection: the names it has prepared, and those whose Parse is on its way. */
interface PgConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

/** pg's own sending of Parse (unless the name is prepared), Bind, Describe, Execute and Sync (not in its types). */
const pgPrepare = (pg.Query.prototype as unknown as { prepare(connection: PgConnection): void }).prepare;

/**
 * One statement sent through a pg client, doing less per statement than pg's own query does for a query config:
 * the config is not copied, the answer comes to a callback rather than through promises of pg's, and the reader
 * of a prepared statement's rows is made from its first row description and kept (`shapes`, by statement name),
 * checked against each later description instead of being built again. Still a pg Query, so a client in pipeline
 * mode takes it, and it sends the same messages.
 */
export class Statement<T> extends pg.Query {
  // pg's Query keeps its own fields on this object (text, values, rows, types, ...): these are named apart from them.
  /** The prepared statement's name (pg's Query has it; its types do not say so). */
  declare name: string | undefined;
  private shape: RowShape | undefined;
  private readonly rowsRead: T[] = [];
  private commandCount: number | null = null;
  /** A row that could not be read: the statement reports it once the server is done with it. */
  private unreadable: unknown;

  constructor(
    text: string,
    name: string | undefined,
    values: unknown[],
    private readonly shapes: Map<string, RowShape>,
    private readonly typeParsers: TypeParsers,
    private readonly done: (err: unknown, result?: StatementResult<T>) => void,
  ) {
    // Given as text, pg makes its own small config instead of copying one (its cloneQueryConfig).
    super(text, values);
    this.name = name;
  }

  /**
   * In pipeline mode an identical statement sent just before may still be preparing the name on this connection.
   * pg would send this one without a Parse, counting on that one's; when that Parse fails, this one would fail with
   * "prepared statement does not exist" in place of its own error. It parses its text itself instead, unnamed: the
   * name is prepared by the statement already on its way, or by the next one sent after that one failed.
   */
  prepare(connection: PgConnection): void {
    const name = this.name;
    if (
      name !== undefined &&
      connection.parsedStatements[name] === undefined &&
      connection.submittedNamedStatements[name] !== undefined
    ) {
      this.name = undefined;
    }
    pgPrepare.call(this, connection);
  }

  handleRowDescription(msg: { fields: ColumnDescription[] }): void {
    const kept = this.name === undefined ? undefined : this.shapes.get(this.name);
    if (kept && describes(kept, msg.fields)) {
      this.shape = kept;
      return;
    }
    const names = msg.fields.map((f) => f.name);
    this.shape = {
      names,
      types: msg.fields.map((f) => f.dataTypeID),
      parsers: msg.fields.map((f) => this.typeParsers.getTypeParser(f.dataTypeID, f.format)),
      make: this.name === undefined ? undefined : rowMaker(names),
    };
    if (this.name !== undefined) this.shapes.set(this.name, this.shape);
  }

  handleDataRow(msg: { fields: (string | null)[] }): void {
    if (this.unreadable !== undefined) return;
    const { names, parsers, make } = this.shape!;
    const values: unknown[] = new Array(names.length);
    try {
      for (let i = 0; i < names.length; i++) {
        const text = msg.fields[i];
        values[i] = text === null ? null : parsers[i](text);
      }
    } catch (err) {
      this.unreadable = err;
      return;
    }
    this.rowsRead.push((make ? make(values) : named(names, values)) as T);
  }

  handleCommandComplete(msg: { text: string }): void {
    // "SELECT 3", "UPDATE 2", "INSERT 0 5": the count is the last word, where the command has one.
    const words = /^[A-Za-z]+(?: (\d+))?(?: (\d+))?/.exec(msg.text);
    const count = words?.[2] ?? words?.[1];
    this.commandCount = count === undefined ? null : Number(count);
  }

  handleError(err: unknown): void {
    const unreadable = this.unreadable;
    this.unreadable = undefined;
    this.done(unreadable ?? err);
  }

  handleReadyForQuery(): void {
    if (this.unreadable !== undefined) this.handleError(this.unreadable);
    else this.done(undefined, { rows: this.rowsRead, rowCount: this.commandCount });
  }
}

/** A row of an unnamed statement, whose shape is not kept: a compiled maker would cost more than it saves. */
function named(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
  return row;
}

/** Whether a row description is the one a shape was made from. */
function describes(shape: RowShape, fields: readonly ColumnDescription[]): boolean {
  if (fields.length !== shape.names.length) return false;
  for (let i = 0; i < fields.length; i++) {
    if (fields[i].dataTypeID !== shape.types[i] || fields[i].name !== shape.names[i]) return false;
  }
  return true;
}
