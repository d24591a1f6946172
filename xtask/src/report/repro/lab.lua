-- innodb-lab reproduction: the statements run.sh needs, through sysbench's
-- own MySQL driver, so that the reproduction needs no client program.
--
--   sysbench lab.lua --mysql-socket=S --mysql-user=root --mysql-db=mysql createdb
--   sysbench lab.lua ... idle     (waits for the pool's dirty pages to settle)
--   sysbench lab.lua ... status   (prints the counters the hit ratio needs)

local function connect()
   local drv = sysbench.sql.driver()
   return drv:connect()
end

local function status(con, name)
   local rs = con:query("SHOW GLOBAL STATUS LIKE '" .. name .. "'")
   local row = rs:fetch_row()
   return tonumber(row[2])
end

local function createdb()
   local con = connect()
   con:query("CREATE DATABASE IF NOT EXISTS sbtest")
end

-- the tool's idle wait: at most 80 dirty pages, for at most 60 s
local function idle()
   local con = connect()
   for _ = 1, 120 do
      if status(con, "Innodb_buffer_pool_pages_dirty") <= 80 then
         return
      end
      os.execute("sleep 0.5")
   end
   print("warning: the pool still had dirty pages after 60 s")
end

local function counters()
   local con = connect()
   for _, name in ipairs({"Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads"}) do
      print(name .. " " .. string.format("%d", status(con, name)))
   end
end

sysbench.cmdline.commands = {
   createdb = {createdb},
   idle = {idle},
   status = {counters},
}
