-- innodb-lab: Mark Callaghan's update-nonindex, with the statement of
-- sysbench 1.0's oltp_common.lua: UPDATE sbtestN SET c=? WHERE id=?, one
-- per event, autocommit (no BEGIN/COMMIT), a uniform table and id, a new
-- random c. No index covers c, so only the clustered index changes.
--
-- This program is free software; you can redistribute it and/or modify it
-- under the terms of the GNU General Public License version 2.

require("oltp_common")

function prepare_statements()
   prepare_non_index_updates()
end

function event()
   execute_non_index_updates()
end
