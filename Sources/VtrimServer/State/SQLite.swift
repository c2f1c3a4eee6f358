import CSQLite

/// What SQLite said when an operation on a database failed: the file, the operation, SQLite's code and message.
struct SQLiteError: Error, CustomStringConvertible {
    let path: String
    let operation: String
    /// SQLite's extended result code.
    let code: Int32
    let message: String

    var description: String { "\(path): \(operation): \(message)" }

    /// Not a database, or a damaged one: moved aside and made again (`StateDatabase`).
    var isDamage: Bool { code & 0xff == SQLITE_NOTADB || code & 0xff == SQLITE_CORRUPT }
}

/// A value bound to or read from a statement.
enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One connection to a database (Debian's libsqlite3, through `CSQLite`): statements prepared, bound and stepped
/// here, each finalized when its value goes. Not Sendable: `StateDatabase` keeps it behind a mutex.
final class SQLiteConnection {
    let path: String
    private let handle: OpaquePointer

    /// Opens (creating) the database at `path` (":memory:" for one in memory), with `busyMilliseconds` of waiting on
    /// another process's lock before a statement gives up.
    init(path: String, busyMilliseconds: Int32 = 5000) throws(SQLiteError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else { throw SQLiteError(path: path, operation: "open", code: status, message: "out of memory") }
        guard status == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            sqlite3_close_v2(opened)
            throw SQLiteError(path: path, operation: "open", code: status, message: message)
        }
        handle = opened
        sqlite3_busy_timeout(handle, busyMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, "execute \(Self.first(sql))") }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, "prepare \(Self.first(sql))") }
        return SQLiteStatement(connection: self, handle: statement, sql: sql)
    }

    /// Every row `sql` returns with `values` bound, as values.
    func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The first column of the first row, or nil for no row.
    func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        try rows(sql, values).first?.first
    }

    /// `body` in one write transaction (taken at once, so two servers queue on `busy_timeout` rather than fail
    /// half-way); rolled back when it throws.
    func transaction<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ status: Int32, _ operation: String) -> SQLiteError {
        SQLiteError(path: path, operation: operation, code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// The statement's first words, to name the operation in an error.
    private static func first(_ sql: String) -> String {
        String(sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(3).joined(separator: " "))
    }
}

/// A prepared statement of a `SQLiteConnection` (which it keeps open).
final class SQLiteStatement {
    private let connection: SQLiteConnection
    private let handle: OpaquePointer
    private let sql: String

    fileprivate init(connection: SQLiteConnection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// SQLite copies what is bound (SQLITE_TRANSIENT: the Swift buffer lives only during the call).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    /// Binds `values` to the parameters 1…n, after clearing the last run.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case let .integer(number): status = sqlite3_bind_int64(handle, index, number)
            case let .real(number): status = sqlite3_bind_double(handle, index, number)
            case let .text(text): status = sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case let .blob(bytes):
                status = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob is bound as one, not as NULL (a null base address would be).
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count), Self.transient)
                }
            }
            guard status == SQLITE_OK else { throw connection.error(status, "bind \(index)") }
        }
    }

    /// One step: true when a row is ready to read, false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(status, "step \(sql.prefix(40))")
        }
    }

    /// Binds `values` and steps to the end (an insert, update or delete).
    func run(_ values: [SQLiteValue]) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    /// The current row's columns.
    func row() -> [SQLiteValue] {
        (0..<sqlite3_column_count(handle)).map { column in
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
            case SQLITE_TEXT:
                guard let text = sqlite3_column_text(handle, column) else { return .text("") }
                let count = Int(sqlite3_column_bytes(handle, column))
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, column))
                guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
            default: return .null
            }
        }
    }
}

extension SQLiteValue {
    var integer: Int64? { if case let .integer(value) = self { return value }; return nil }
    var real: Double? {
        switch self {
        case let .real(value): return value
        case let .integer(value): return Double(value)
        default: return nil
        }
    }
    var text: String? { if case let .text(value) = self { return value }; return nil }
    var blob: [UInt8]? { if case let .blob(value) = self { return value }; return nil }

    static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
    static func optional(_ number: Double?) -> SQLiteValue { number.map(SQLiteValue.real) ?? .null }
    static func optional(_ number: Int?) -> SQLiteValue { number.map { .integer(Int64($0)) } ?? .null }
}
