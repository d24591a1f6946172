-- innodb-lab: scan resistance (seed 001), written for sysbench 1.0.
--
-- Two tables in the sysbench database, and a third if asked:
--   hot:  --hot-rows rows, point lookups by primary key (the hot set)
--   scan: --scan-rows rows, scanned in full in a loop (larger than the pool)
--   cold: --cold-rows rows (0: no table), loaded after hot and never read:
--         the rest of the seed's table, whose first rows alone were read
--   filler: --filler-rows rows (0: no table), loaded after cold; the tool
--         reads it once after restarting the server (the seed's cold start)
-- Each row carries a 200-byte CHAR, as in the seed (about 70 rows a page).
--
-- Threads 0 .. --scan-threads-1 scan (`SELECT SUM(LENGTH(pad)) FROM scan`,
-- one event per pass, back to back, or --scan-pause-ms apart); the others
-- look up one random id of hot per event. At the end each thread prints one line
--   scan-loop: role=<hot|scan> thread=<n> events=<count>
-- which the tool reads: sysbench's own totals mix both kinds of event.
--
-- prepare creates and loads the tables (bulk inserts of 1,000 rows).
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

sysbench.cmdline.options = {
   hot_rows = {"Rows of the hot table", 60000},
   scan_rows = {"Rows of the scanned table", 800000},
   scan_threads = {"Threads that scan; the others look up hot rows", 1},
   cold_rows = {"Rows of a table loaded after hot and never read", 0},
   scan_pause_ms = {"Milliseconds a scanning thread waits after each pass", 0},
   filler_rows = {"Rows of a table loaded after cold, read by the tool after a restart", 0},
   mysql_storage_engine = {"Storage engine", "innodb"},
   skip_trx = {"Unused; accepted like the other scripts", true},
}

local PAD = string.rep("x", 200)

local function load(con, name, rows)
   con:query(string.format([[
CREATE TABLE IF NOT EXISTS %s (
  id INT NOT NULL PRIMARY KEY,
  pad CHAR(200) NOT NULL DEFAULT ''
) ENGINE = %s]], name, sysbench.opt.mysql_storage_engine))
   local batch = 1000
   local id = 1
   while id <= rows do
      con:bulk_insert_init(string.format("INSERT INTO %s (id, pad) VALUES", name))
      local last = math.min(id + batch - 1, rows)
      for i = id, last do
         con:bulk_insert_next(string.format("(%d, '%s')", i, PAD))
      end
      con:bulk_insert_done()
      id = last + 1
   end
end

function cmd_prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   -- thread 0 loads hot, thread 1 (or 0 alone) loads scan
   if sysbench.tid == 0 then
      load(con, "hot", sysbench.opt.hot_rows)
      if sysbench.opt.cold_rows > 0 then
         load(con, "cold", sysbench.opt.cold_rows)
      end
      if sysbench.opt.filler_rows > 0 then
         load(con, "filler", sysbench.opt.filler_rows)
      end
   end
   if sysbench.tid == 1 or sysbench.opt.threads == 1 then
      load(con, "scan", sysbench.opt.scan_rows)
   end
end

sysbench.cmdline.commands = {
   prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
}

local events = 0

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   scanner = sysbench.tid < sysbench.opt.scan_threads
   if scanner then
      scan_stmt = con:prepare("SELECT SUM(LENGTH(pad)) FROM scan")
      if sysbench.opt.scan_pause_ms > 0 then
         -- sysbench's LuaJIT reaches libc through its ffi; a second
         -- declaration of the same function is an error, hence pcall
         ffi = require("ffi")
         pcall(ffi.cdef, "int usleep(unsigned int usec);")
      end
   else
      hot_stmt = con:prepare("SELECT pad FROM hot WHERE id = ?")
      hot_id = hot_stmt:bind_create(sysbench.sql.type.INT)
      hot_stmt:bind_param(hot_id)
   end
end

function event()
   if scanner then
      scan_stmt:execute()
      if sysbench.opt.scan_pause_ms > 0 then
         ffi.C.usleep(sysbench.opt.scan_pause_ms * 1000)
      end
   else
      hot_id:set(sysbench.rand.uniform(1, sysbench.opt.hot_rows))
      hot_stmt:execute()
   end
   events = events + 1
end

function thread_done()
   -- One write with its newline: print() writes the text and the newline
   -- in two calls, and two threads ending together glued their lines.
   io.write(string.format("scan-loop: role=%s thread=%d events=%d\n",
                          scanner and "scan" or "hot", sysbench.tid, events))
   io.stdout:flush()
   con:disconnect()
end
