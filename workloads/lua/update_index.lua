-- innodb-lab: Mark Callaghan's update-index, with the statement of
-- sysbench 1.0's oltp_common.lua: UPDATE sbtestN SET k=k+1 WHERE id=?,
-- one per event, autocommit (no BEGIN/COMMIT), a uniform table and id.
-- Changing k moves the row in the secondary index k.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

function prepare_statements()
   prepare_index_updates()
end

function event()
   execute_index_updates()
end
