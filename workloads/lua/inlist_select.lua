-- innodb-lab: Mark Callaghan's random-points and hot-points, written for
-- sysbench 1.0 on top of its own oltp_common.lua (same schema and prepare
-- as Mark's runs).
--
--   random-points: SELECT c FROM sbtestN WHERE id IN (<random ids>)
--   hot-points:    the same statement, always the ids table_size/2+1 ..
--                  table_size/2+random_points (--hot-points=true)
--
-- Each event picks a table uniformly; random ids are uniform under
-- --rand-type=uniform in [1, table_size]. One server-side prepared
-- statement per table, as in Mark's runs.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

sysbench.cmdline.options.random_points =
   {"Number of ids in each IN-list", 10}
sysbench.cmdline.options.hot_points =
   {"Look up the same adjacent ids in the middle of the table every time", false}

function prepare_statements()
   local n = sysbench.opt.random_points
   local marks = string.rep("?, ", n - 1) .. "?"
   for t = 1, sysbench.opt.tables do
      stmt[t].inlist = con:prepare(string.format(
         "SELECT c FROM sbtest%d WHERE id IN (%s)", t, marks))
      param[t].inlist = {}
      for p = 1, n do
         param[t].inlist[p] = stmt[t].inlist:bind_create(sysbench.sql.type.INT)
      end
      stmt[t].inlist:bind_param(unpack(param[t].inlist))
   end
end

function event()
   local t = sysbench.rand.uniform(1, sysbench.opt.tables)
   local ids = param[t].inlist
   if sysbench.opt.hot_points then
      local first = math.floor(sysbench.opt.table_size / 2) + 1
      for p = 1, sysbench.opt.random_points do
         ids[p]:set(first + p - 1)
      end
   else
      for p = 1, sysbench.opt.random_points do
         ids[p]:set(sysbench.rand.default(1, sysbench.opt.table_size))
      end
   end
   stmt[t].inlist:execute()
end
