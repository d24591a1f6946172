-- innodb-lab: Mark Callaghan's read-write (range=10 or 100), with the
-- statements of sysbench 1.0's oltp_common.lua, as Mark's runs use them.
--
-- Each event is one transaction: the read-only body (10 point selects and
-- four range queries of --range-size rows), then UPDATE k=k+1 by id,
-- UPDATE c by id, DELETE by id and INSERT of the same id; COMMIT.
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
   prepare_index_updates()
   prepare_non_index_updates()
   prepare_delete_inserts()
end

function event()
   begin()
   execute_point_selects()
   execute_simple_ranges()
   execute_sum_ranges()
   execute_order_ranges()
   execute_distinct_ranges()
   execute_index_updates()
   execute_non_index_updates()
   execute_delete_inserts()
   commit()
end
