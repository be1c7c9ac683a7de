{#- A select of (node, component): one row per node on an edge of the undirected graph
    `edges` (a relation) between the columns `node_a` and `node_b`, and a label shared by
    exactly the nodes of its connected component. Nodes that are on no edge are not listed. -#}
{% macro connected_components(edges, node_a, node_b) -%}
    {{ return(adapter.dispatch('connected_components', 'lakemix')(edges, node_a, node_b)) }}
{%- endmacro %}

{#- DuckDB: union-find over the whole edge list in one call of the lakemix_connected_components
    UDF (numba): nodes are numbered in their order, and a component's label is its smallest
    number. -#}
{% macro default__connected_components(edges, node_a, node_b) -%}
    with

    linked_nodes as (
        select {{ node_a }} as node from {{ edges }}
        union
        select {{ node_b }} as node from {{ edges }}
    ),

    numbered_nodes as (
        select
            node,
            row_number() over (order by node) - 1 as node_number
        from linked_nodes
    ),

    edges_numbered as (
        select
            numbered_a.node_number as number_a,
            numbered_b.node_number as number_b
        from {{ edges }} as graph_edges
        inner join numbered_nodes as numbered_a
            on graph_edges.{{ node_a }} = numbered_a.node
        inner join numbered_nodes as numbered_b
            on graph_edges.{{ node_b }} = numbered_b.node
    ),

    component_labels as (
        select
            lakemix_connected_components(
                (select count(*) from numbered_nodes),
                coalesce(
                    (select {{ lakemix.ordered_list('number_a', ['number_a', 'number_b']) }} from edges_numbered),
                    {{ lakemix.list_of([], 'bigint') }}
                ),
                coalesce(
                    (select {{ lakemix.ordered_list('number_b', ['number_a', 'number_b']) }} from edges_numbered),
                    {{ lakemix.list_of([], 'bigint') }}
                )
            ) as labels
    ),

    number_components as (
        select
            {{ lakemix.explode_with_position('labels', 'node_number', 'component') }}
        from component_labels
    )

    select
        numbered_nodes.node,
        number_components.component
    from numbered_nodes
    inner join number_components
        on numbered_nodes.node_number = number_components.node_number
{%- endmacro %}

{#- Spark: nothing is gathered in one task or on the driver. Min-label propagation with pointer
    jumping, in rounds of distributed joins and group-bys: every node starts with the smallest
    of itself and its neighbours; each round, a node takes the smallest label of its neighbours
    (if smaller), then the label of its label (which halves the chains). Labels only decrease
    and are always nodes of the component, so when a round changes nothing every component is
    labelled by its smallest node. Each round is written to an Iceberg table beside the model
    (two, taken in turns), so a round's plan is a scan of the last one, not the whole history
    (cached temporary views keep their plans: theirs grew threefold per round). The rounds run
    while the model compiles (run/build only); the model reads the last round and its post-hook
    drops the tables (drop_connected_components). At most lakemix_spark_component_max_rounds. -#}
{% macro spark__connected_components(edges, node_a, node_b) -%}
    {%- set tables = lakemix.connected_components_tables() -%}
    {%- set state = namespace(round=0, changed=-1) -%}
    {%- if execute and flags.WHICH in ('run', 'build') -%}
        {%- set max_rounds = var('lakemix_spark_component_max_rounds', 100) | int -%}
        {%- set neighbours -%}
            select {{ node_a }} as node, {{ node_b }} as neighbour from {{ edges }}
            union all
            select {{ node_b }} as node, {{ node_a }} as neighbour from {{ edges }}
        {%- endset -%}
        {%- do run_query(
            'create or replace table ' ~ tables[0] ~ ' using iceberg as'
            ~ ' select node, least(node, min(neighbour)) as label, true as is_changed'
            ~ ' from (' ~ neighbours ~ ') as graph_edges group by node'
        ) -%}
        {%- for round in range(1, max_rounds + 1) -%}
            {%- set previous = tables[(round - 1) % 2] -%}
            {%- set current = tables[round % 2] -%}
            {%- set round_sql -%}
                create or replace table {{ current }} using iceberg as
                with

                graph_edges as (
                    {{ neighbours }}
                ),

                propagated as (
                    select
                        graph_edges.node,
                        min(labels.label) as label
                    from graph_edges
                    inner join {{ previous }} as labels
                        on graph_edges.neighbour = labels.node
                    group by graph_edges.node
                ),

                merged as (
                    select
                        previous_labels.node,
                        previous_labels.label as previous_label,
                        least(previous_labels.label, propagated.label) as label
                    from {{ previous }} as previous_labels
                    inner join propagated
                        on previous_labels.node = propagated.node
                )

                select
                    merged.node,
                    jumped.label,
                    jumped.label != merged.previous_label as is_changed
                from merged
                inner join merged as jumped
                    on merged.label = jumped.node
            {%- endset -%}
            {%- do run_query(round_sql) -%}
            {%- set state.changed = run_query(
                'select count(*) from ' ~ current ~ ' where is_changed'
            ).columns[0].values()[0] | int -%}
            {%- set state.round = round -%}
            {%- if state.changed == 0 -%}
                {%- break -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if state.changed != 0 -%}
            {%- do exceptions.raise_compiler_error(
                'connected components of ' ~ edges ~ ' did not converge in ' ~ max_rounds
                ~ ' rounds: raise the var lakemix_spark_component_max_rounds'
            ) -%}
        {%- endif -%}
        {{ log(this.identifier ~ ': connected components in ' ~ state.round ~ ' rounds') }}
    {%- endif %}
    select
        node,
        label as component
    from {{ tables[state.round % 2] }}
{%- endmacro %}

{#- The two round tables of spark__connected_components, beside the model. -#}
{% macro connected_components_tables() -%}
    {%- set base = this.schema ~ '.' ~ this.identifier ~ '__components_' -%}
    {{ return([base ~ 'even', base ~ 'odd']) }}
{%- endmacro %}

{#- Post-hook of a model that calls connected_components: drop its round tables (Spark). -#}
{% macro drop_connected_components() -%}
    {{ return(adapter.dispatch('drop_connected_components', 'lakemix')()) }}
{%- endmacro %}

{#- The hook is left empty (dbt skips it); Spark drops the tables while rendering it. -#}
{% macro default__drop_connected_components() -%}
{%- endmacro %}

{% macro spark__drop_connected_components() -%}
    {%- for table in lakemix.connected_components_tables() -%}
        {%- if execute -%}
            {%- do run_query('drop table if exists ' ~ table ~ ' purge') -%}
        {%- endif -%}
    {%- endfor -%}
{%- endmacro %}
