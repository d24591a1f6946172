-- innodb-lab: Mark Callaghan's read-only (range=10, 100 or 10000), with the
-- statements of sysbench 1.0's oltp_common.lua, as Mark's runs use them.
--
-- Each event is one transaction: BEGIN; --point-selects (10) times
-- SELECT c WHERE id=?; then one each of SELECT c WHERE id BETWEEN,
-- SELECT SUM(k) ... BETWEEN, ... ORDER BY c, SELECT DISTINCT c ... ORDER
-- BY c over --range-size rows; COMMIT. sysbench counts BEGIN and COMMIT
-- as queries, as in Mark's QPS.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

function prepare_statements()
   prepare_begin()
   prepare_commit()
   prepare_point_selects()
   prepare_simple_ranges()
   prepare_sum_ranges()
   prepare_order_ranges()
   prepare_distinct_ranges()
end

function event()
   begin()
   execute_point_selects()
   execute_simple_ranges()
   execute_sum_ranges()
   execute_order_ranges()
   execute_distinct_ranges()
   commit()
end
