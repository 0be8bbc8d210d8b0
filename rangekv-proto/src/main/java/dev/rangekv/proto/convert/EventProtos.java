package dev.rangekv.proto.convert;

import dev.rangekv.core.cluster.Event;
import dev.rangekv.core.cluster.Figure;
import dev.rangekv.proto.EventProto;
import dev.rangekv.proto.FigureProto;
import java.util.ArrayList;
import java.util.List;

/** Event-log entries between core's {@link Event} and their protobuf form; lossless both ways. Stateless. */
public final class EventProtos {
  private EventProtos() {}

  public static Event event(EventProto p) {
    List<Figure> figures = new ArrayList<>(p.getFiguresCount());
    for (FigureProto f : p.getFiguresList()) {
      figures.add(new Figure(f.getName(), f.getValue()));
    }
    return new Event(p.getSeq(), p.getAtMillis(), p.getKind(), p.getRangeIdsList(), p.getReason(), figures,
        p.getDetail());
  }

  public static EventProto proto(Event e) {
    EventProto.Builder b = EventProto.newBuilder().setSeq(e.seq()).setAtMillis(e.atMillis()).setKind(e.kind())
        .addAllRangeIds(e.rangeIds()).setReason(e.reason()).setDetail(e.detail());
    for (Figure f : e.figures()) {
      b.addFigures(figure(f));
    }
    return b.build();
  }

  public static FigureProto figure(Figure f) {
    return FigureProto.newBuilder().setName(f.name()).setValue(f.value()).build();
  }

  public static List<Event> events(List<EventProto> ps) {
    return ps.stream().map(EventProtos::event).toList();
  }

  public static List<EventProto> protos(List<Event> es) {
    return es.stream().map(EventProtos::proto).toList();
  }
}
