-- innodb-lab: Mark Callaghan's points-covered-pk and its siblings, written
-- for sysbench 1.0 on top of its own oltp_common.lua (same schema and
-- prepare as Mark's runs).
--
--   points-covered-pk:    SELECT id    FROM sbtestN WHERE id IN (<random ids>)
--   points-notcovered-pk: SELECT id, c FROM sbtestN WHERE id IN (...)   --covered=false
--   points-covered-si:    SELECT k     FROM sbtestN WHERE k  IN (...)   --on-id=false
--   points-notcovered-si: SELECT k, c  FROM sbtestN WHERE k  IN (...)   --on-id=false --covered=false
--
-- Each event picks a table uniformly and --random-points ids (uniform under
-- --rand-type=uniform) from [1, table_size]; the statement is a server-side
-- prepared statement, as in Mark's runs.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

sysbench.cmdline.options.random_points =
   {"Number of ids in each IN-list", 100}
sysbench.cmdline.options.on_id =
   {"Look up the primary key (true) or the secondary index k (false)", true}
sysbench.cmdline.options.covered =
   {"Select only the looked-up column (true) or also c (false)", true}

function prepare_statements()
   local column = sysbench.opt.on_id and "id" or "k"
   local select_list = sysbench.opt.covered and column or (column .. ", c")
   local marks = string.rep("?, ", sysbench.opt.random_points - 1) .. "?"
   for t = 1, sysbench.opt.tables do
      stmt[t].points = con:prepare(string.format(
         "SELECT %s FROM sbtest%d WHERE %s IN (%s)", select_list, t, column, marks))
      param[t].points = {}
      for p = 1, sysbench.opt.random_points do
         param[t].points[p] = stmt[t].points:bind_create(sysbench.sql.type.INT)
      end
      stmt[t].points:bind_param(unpack(param[t].points))
   end
end

function event()
   local t = sysbench.rand.uniform(1, sysbench.opt.tables)
   for p = 1, sysbench.opt.random_points do
      param[t].points[p]:set(sysbench.rand.default(1, sysbench.opt.table_size))
   end
   stmt[t].points:execute()
end
