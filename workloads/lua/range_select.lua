-- innodb-lab: Mark Callaghan's range-covered-pk and range-notcovered-si,
-- written for sysbench 1.0 on top of its own oltp_common.lua (same schema
-- and prepare as Mark's runs).
--
--   range-covered-pk:    SELECT id   FROM sbtestN WHERE id BETWEEN x AND x+R
--   range-notcovered-si: SELECT k, c FROM sbtestN WHERE k  BETWEEN x AND x+R
--                        (--on-id=false --covered=false: a secondary-index
--                        range, then a primary-key lookup per row)
--
-- R is --random-points (as in Mark's runs, not --range-size), so a range
-- holds about R+1 rows. Each event picks a table uniformly and x uniformly
-- in [1, table_size - R]. One server-side prepared statement per table.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

sysbench.cmdline.options.random_points =
   {"Length of each range", 100}
sysbench.cmdline.options.on_id =
   {"Range over the primary key (true) or the secondary index k (false)", true}
sysbench.cmdline.options.covered =
   {"Select only the range column (true) or also c (false)", true}

function prepare_statements()
   local column = sysbench.opt.on_id and "id" or "k"
   local select_list = sysbench.opt.covered and column or (column .. ", c")
   for t = 1, sysbench.opt.tables do
      stmt[t].range = con:prepare(string.format(
         "SELECT %s FROM sbtest%d WHERE %s BETWEEN ? AND ?", select_list, t, column))
      param[t].range = {
         stmt[t].range:bind_create(sysbench.sql.type.INT),
         stmt[t].range:bind_create(sysbench.sql.type.INT),
      }
      stmt[t].range:bind_param(unpack(param[t].range))
   end
end

function event()
   local t = sysbench.rand.uniform(1, sysbench.opt.tables)
   local length = sysbench.opt.random_points
   local low = sysbench.rand.default(1, sysbench.opt.table_size - length)
   param[t].range[1]:set(low)
   param[t].range[2]:set(low + length)
   stmt[t].range:execute()
end
