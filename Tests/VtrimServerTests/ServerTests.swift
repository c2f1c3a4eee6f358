import Foundation
import Testing
import TestSupport
import WorkerProtocol
@testable import VtrimServer

/// `vtrim serve`'s server in this process (on 127.0.0.1 and a free port; its engine workers are the built
/// vtrim's `_worker`): the security middleware, Range parsing and the routes' errors, without a spawned
/// server or an HTTP client library.
@Suite(.serialized)
struct ServerTests {
    static let token = "servertests-token"

    /// A running server over a folder holding the main fixture, and a client for it.
    final class Running {
        let server: Server
        let task: Task<Int32, Never>
        let folder: TemporaryFolder
        let http: PlainHTTP
        var clip = ""

        init() async throws {
            folder = try TemporaryFolder()
            try FileManager.default.copyItem(atPath: TestPaths.fixture("h264-aac.mp4"), toPath: folder.file("clip.mp4"))
            var options = ServeOptions(folders: [folder.path], token: ServerTests.token, cacheSizeBytes: 64 << 20,
                                       workerTimeoutSeconds: 30)
            options.workerExecutable = TestPaths.vtrimBinary
            options.standalone = false
            options.cacheFolder = folder.file("cache")
            options.stateFolder = folder.file("state")
            let server = Server(options: options)
            self.server = server
            task = Task { await server.run() }
            // Generous: the server's start runs on Swift's cooperative pool (two threads here), which the in-process
            // engine suites of the same `swift test` can hold for tens of seconds (a start missed 30 s once).
            let deadline = Date().addingTimeInterval(120)
            while server.security.boundPort == 0, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
            try #require(server.security.boundPort > 0, "the server did not start")
            http = PlainHTTP(port: server.security.boundPort)
            let list = try http.request("GET", "/api/clips", headers: ServerTests.auth)
            clip = (((try JSONSerialization.jsonObject(with: list.body) as? [String: Any])?["items"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
        }

        func stop() async {
            await server.stop()
            _ = await task.value
            folder.remove()
        }
    }

    static let auth = ["Authorization": "Bearer \(token)"]

    @Test func theMiddlewareRefusesWhatIsNotFromItsOwnPage() async throws {
        let running = try await Running()
        let http = running.http, port = running.server.security.boundPort
        #expect(try http.request("GET", "/api/clips").status == 401)
        #expect(try http.request("GET", "/api/clips", headers: ["Authorization": "Bearer wrong-token-x"]).status == 401)
        #expect(try http.request("GET", "/api/clips", headers: ["Cookie": "vtrim_token_\(port)=nope"]).status == 401)
        let foreign = try http.request("GET", "/api/clips", host: "evil.example:\(port)", headers: Self.auth)
        #expect(foreign.status == 403 && foreign.errorCode == "foreign_host")
        #expect(try http.request("GET", "/api/clips", host: "localhost:\(port)", headers: Self.auth).status == 200)
        let visit = try http.request("GET", "/?token=\(Self.token)")
        #expect(visit.status == 303 && visit.headers["location"] == "/")
        #expect(visit.headers["set-cookie"]?.hasPrefix("vtrim_token_\(port)=\(Self.token)") == true)
        #expect(try http.request("GET", "/", headers: ["Cookie": "vtrim_token_\(port)=\(Self.token)"]).status == 200)
        let form = try http.request("POST", "/api/cuts", headers: Self.auth.merging(["Content-Type": "text/plain"]) { a, _ in a }, body: "x")
        #expect(form.status == 415 && form.errorCode == "json_required")
        let origin = try http.request("POST", "/api/cuts", headers: Self.auth.merging(["Content-Type": "application/json",
                                                                                        "Origin": "http://evil.example"]) { a, _ in a },
                                      body: "{}")
        #expect(origin.status == 403 && origin.errorCode == "foreign_origin")
        let site = try http.request("DELETE", "/api/cuts/c0001", headers: Self.auth.merging(["Content-Type": "application/json",
                                                                                              "Sec-Fetch-Site": "cross-site"]) { a, _ in a },
                                    body: "{}")
        #expect(site.status == 403)
        await running.stop()
    }

    @Test func routesAnswerBadRequestsWithTheirErrors() async throws {
        let running = try await Running()
        let http = running.http, clip = running.clip
        try #require(clip.count == 16)
        let json = Self.auth.merging(["Content-Type": "application/json"]) { a, _ in a }
        for (path, status) in [("/api/clips/0123456789abcdef", 404), ("/api/clips/not-an-id", 404), ("/media/0123456789abcdef", 404),
                               ("/api/clips/\(clip)/filmstrip.png?strip_width=600", 400),
                               ("/api/clips/\(clip)/filmstrip.png?strip_width=600&thumb_width=40&thumb_height=50&first=0&count=65", 400),
                               ("/api/clips/\(clip)/filmstrip.png?strip_width=600&thumb_width=4000&thumb_height=50&first=0&count=1", 400),
                               ("/api/clips/\(clip)/filmstrip.png?strip_width=600&thumb_width=40&thumb_height=50&first=0&count=1&scale=9", 400),
                               ("/api/clips/\(clip)/timeline?strip_width=600&thumb_width=40&thumb_height=50&ops=jump:3", 400),
                               ("/api/clips/\(clip)/timeline?strip_width=1e9&thumb_width=40&thumb_height=50", 400),
                               ("/media/\(clip)/preview.mp4", 404), ("/api/cuts/c9999", 404), ("/media/cuts/c9999", 404)] {
            #expect(try http.request("GET", path, headers: Self.auth).status == status, "\(path)")
        }
        #expect(try http.request("POST", "/api/cuts", headers: json, body: "{not json").status == 400)
        #expect(try http.request("POST", "/api/cuts", headers: json, body: #"{"clip":"\#(clip)","start":2,"end":1}"#).status == 400)
        #expect(try http.request("POST", "/api/cuts", headers: json, body: #"{"clip":"\#(clip)","start":1,"end":2,"mode":"fast"}"#).status == 400)
        let refused = try http.request("POST", "/api/cuts", headers: json, body: #"{"clip":"\#(clip)","start":50,"end":60}"#)
        #expect(refused.status == 422 && refused.errorCode == "invalid_range", "\(refused.text)")
        #expect(try http.request("DELETE", "/api/cuts/c9999", headers: json, body: "{}").status == 404)
        // And the engine's answers through a worker, for the same clip.
        let probe = try http.request("GET", "/api/clips/\(clip)", headers: Self.auth)
        #expect(probe.status == 200 && probe.json?["path"] as? String == "clip.mp4", "\(probe.text)")
        await running.stop()
    }

    @Test func mediaIsServedInRanges() async throws {
        let running = try await Running()
        let http = running.http, clip = running.clip
        let whole = try Data(contentsOf: URL(fileURLWithPath: running.folder.file("clip.mp4")))
        let part = try http.request("GET", "/media/\(clip)", headers: Self.auth.merging(["Range": "bytes=100-199"]) { a, _ in a })
        #expect(part.status == 206 && part.body == whole[100..<200])
        #expect(part.headers["content-range"] == "bytes 100-199/\(whole.count)")
        let past = try http.request("GET", "/media/\(clip)", headers: Self.auth.merging(["Range": "bytes=\(whole.count)-"]) { a, _ in a })
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(whole.count)")
        await running.stop()
    }

    /// `bytes=…` as RFC 9110 reads it: one range, or the whole file for anything this server does not split.
    @Test(arguments: [
        ("bytes=0-99", FileResponses.Requested.range(0...99)),
        ("bytes=100-", .range(100...999)),
        ("bytes=-16", .range(984...999)),
        ("bytes=-5000", .range(0...999)),
        ("bytes=990-5000", .range(990...999)),
        ("bytes=0-99999999999999999999999", .range(0...999)),
        ("bytes=-99999999999999999999999", .range(0...999)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=99999999999999999999999-", .unsatisfiable),
        ("bytes=5-2", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=0-1,5-6", .whole),
        ("bytes=abc", .whole),
        ("bytes=1-x", .whole),
        ("bytes=-x", .whole),
        ("bytes=+1-2", .whole),
        ("items=0-1", .whole),
    ])
    func rangeHeaders(header: String, expected: FileResponses.Requested) async {
        #expect(FileResponses.parseRange(header, size: 1000) == expected, "\(header)")
    }

    @Test func hostAllowListFollowsTheBoundAddress() async {
        let named = Security(token: Self.token, host: "192.168.7.9")
        named.bound(port: 4321)
        #expect(named.hostAllowed("192.168.7.9:4321") && named.hostAllowed("127.0.0.1:4321") && named.hostAllowed("LOCALHOST:4321"))
        #expect(!named.hostAllowed("192.168.7.10:4321") && !named.hostAllowed("192.168.7.9:80") && !named.hostAllowed(nil))
        let loopback = Security(token: Self.token, host: "127.0.0.1")
        loopback.bound(port: 4321)
        #expect(loopback.allowedHosts == ["127.0.0.1:4321", "localhost:4321", "[::1]:4321"])
        let all = Security(token: Self.token, host: "0.0.0.0")
        all.bound(port: 4321)
        let addresses = Security.machineAddresses()
        #expect(!addresses.isEmpty)
        for address in addresses {
            #expect(all.hostAllowed((address.contains(":") ? "[\(address)]" : address) + ":4321"), "\(address)")
        }
        #expect(!all.hostAllowed("evil.example:4321"))
    }

    /// A cut's plan goes ahead of queued tiles and probes, behind plans queued before it; the rest wait in order.
    @Test func plansGoAheadOfQueuedTilesAndProbes() async {
        let plan = WorkerRequest.plan(path: "a.mp4", output: "a.cut.mp4", ranges: [ServeRange(start: 1, end: 2)], shape: .cut, mode: .copy,
                                      threads: ThreadShare(cores: 2, jobs: 1))
        let probe = WorkerRequest.probe(path: "b.mp4"), frames = WorkerRequest.frames(path: "c.mp4")
        #expect(WorkerPool.place(of: plan, in: []) == 0)
        #expect(WorkerPool.place(of: plan, in: [probe, frames]) == 0)
        #expect(WorkerPool.place(of: plan, in: [plan, plan, probe]) == 2)
        #expect(WorkerPool.place(of: plan, in: [plan]) == 1)
        #expect(WorkerPool.place(of: probe, in: [plan, probe]) == 2)
        #expect(WorkerPool.place(of: frames, in: []) == 0)
    }
}
